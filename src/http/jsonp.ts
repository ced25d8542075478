/** Longest JSONP callback name accepted (a longer one is a 400). */
export const MAX_CALLBACK_CHARS = 128;

/** JSONP as ServiceStack wrote it: `name(json)`, no semicolon, name reduced to [A-Za-z0-9._] (and capped in length). */
export function sanitizeCallback(name: string): string {
  return name.slice(0, MAX_CALLBACK_CHARS).replace(/[^A-Za-z0-9._]/g, '_');
}

export function wrapJsonp(callback: string, json: string): string {
  return `${sanitizeCallback(callback)}(${json})`;
}

export const JSONP_CONTENT_TYPE = 'text/javascript';
