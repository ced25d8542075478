/** JSONP as ServiceStack wrote it: `name(json)`, no semicolon, name reduced to [A-Za-z0-9._]. */
export function sanitizeCallback(name: string): string {
  return name.replace(/[^A-Za-z0-9._]/g, '_');
}

export function wrapJsonp(callback: string, json: string): string {
  return `${sanitizeCallback(callback)}(${json})`;
}

export const JSONP_CONTENT_TYPE = 'text/javascript';
