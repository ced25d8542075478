/**
 * JSONP, a wrapper around the JSON format: `?callback=name` answers `name(json)` as `text/javascript`, no
 * semicolon, the name reduced to [A-Za-z0-9._] (ServiceStack's SafeVarRef; capped in length). Errors keep their
 * status and are wrapped too. A callback name longer than MAX_CALLBACK_CHARS is refused (400) before it is used.
 */
import { Keywords } from '../contract/keywords.ts';
import type { FormatEntry } from './registry.ts';

export const MAX_CALLBACK_CHARS = 128;
export const JSONP_CONTENT_TYPE = 'text/javascript';

export function sanitizeCallback(name: string): string {
  return name.slice(0, MAX_CALLBACK_CHARS).replace(/[^A-Za-z0-9._]/g, '_');
}

export function wrapJsonp(callback: string, json: string): string {
  return `${sanitizeCallback(callback)}(${json})`;
}

export const jsonpFormat: FormatEntry = {
  format: 'jsonp',
  mediaType: JSONP_CONTENT_TYPE,
  contentType: JSONP_CONTENT_TYPE,
  wraps: {
    format: 'json',
    keyword: Keywords.callback,
    wrap: (json, callback) => wrapJsonp(callback, json),
    accepts: (callback) => callback !== '' && callback.length <= MAX_CALLBACK_CHARS,
  },
};
