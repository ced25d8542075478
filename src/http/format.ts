/**
 * Response format selection, ServiceStack's priority: path extension, then `?callback` (JSON), then
 * `?format=`, then the `/json/` route prefix, then Accept, then the default (JSON). This version writes JSON
 * only, so unknown choices fall through to it; the order is kept for the formats to come.
 */
import type { Request } from 'express';
import { Keywords } from './keywords.ts';

export const FORMATS = ['json'] as const;
export type WireFormat = (typeof FORMATS)[number];
const DEFAULT_FORMAT: WireFormat = 'json';

const MEDIA_TYPES: Record<WireFormat, string> = { json: 'application/json' };

function known(name: string | undefined): WireFormat | undefined {
  return FORMATS.find((f) => f === name);
}

export function formatOfExtension(extension: string): WireFormat | undefined {
  return known(extension); // case-sensitive, as ServiceStack looked it up
}

function fromAccept(accept: string | undefined): WireFormat | undefined {
  for (const entry of (accept ?? '').split(',')) {
    const media = entry.split(';')[0]!.trim().toLowerCase();
    const format = FORMATS.find((f) => media.startsWith(MEDIA_TYPES[f]));
    if (format) return format;
  }
  return undefined;
}

export function negotiateFormat(req: Request, extensionFormat: string | undefined): WireFormat {
  const query = req.query as Record<string, unknown>;
  const extension = known(extensionFormat);
  if (extension) return extension;
  if (typeof query[Keywords.callback] === 'string' && query[Keywords.callback] !== '') return 'json';
  const format = query[Keywords.format];
  const fromQuery = typeof format === 'string' ? known(format.split('.')[0]!.toLowerCase()) : undefined;
  if (fromQuery) return fromQuery;
  if (/^\/json\//i.test(req.path)) return 'json';
  return fromAccept(req.get('accept')) ?? DEFAULT_FORMAT;
}
