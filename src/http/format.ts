/**
 * Response format selection, ServiceStack's priority: path extension, then `?callback` (JSON), then
 * `?format=`, then the `/json/` route prefix, then Accept, then the resource's default. Each resource says
 * which formats it can write; a choice it cannot write falls through to the next rule.
 */
import type { Request } from 'express';
import { Keywords, keywordValue } from './keywords.ts';

export const MEDIA_TYPES = {
  json: 'application/json',
  xml: 'application/xml',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
} as const;

export type WireFormat = keyof typeof MEDIA_TYPES;
const ALL_FORMATS = Object.keys(MEDIA_TYPES) as WireFormat[];

function isFormat(name: string | undefined): name is WireFormat {
  return ALL_FORMATS.includes(name as WireFormat);
}

/** The format a path extension names (case-sensitive, as ServiceStack looked it up), if it names one. */
export function formatOfExtension(extension: string): WireFormat | undefined {
  return isFormat(extension) ? extension : undefined;
}

function fromAccept(accept: string | undefined, supported: readonly WireFormat[]): WireFormat | undefined {
  const wanted = (accept ?? '').split(',').map((entry) => entry.split(';')[0]!.trim().toLowerCase());
  return supported.find((format) => wanted.some((media) => media.startsWith(MEDIA_TYPES[format])));
}

export function negotiateFormat(
  req: Request,
  extensionFormat: string | undefined,
  supported: readonly WireFormat[],
  fallback: WireFormat,
): WireFormat {
  const can = (format: string | undefined): format is WireFormat => isFormat(format) && supported.includes(format);
  if (can(extensionFormat)) return extensionFormat;
  const query = req.query as Record<string, unknown>;
  if (keywordValue(query, Keywords.callback) && can('json')) return 'json';
  const format = keywordValue(query, Keywords.format);
  const fromQuery = typeof format === 'string' ? format.split('.')[0]!.toLowerCase() : undefined;
  if (can(fromQuery)) return fromQuery;
  if (/^\/json\//i.test(req.path) && can('json')) return 'json';
  return fromAccept(req.get('accept'), supported) ?? fallback;
}
