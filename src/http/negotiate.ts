/**
 * Response format negotiation, run once per request, ServiceStack's priority: path extension, then a wrapper's
 * keyword (`?callback` → JSON), then `?format=`, then a format-named first path segment (`/json/reply/...`), then
 * Accept, then the default. The candidates are the formats the operation's `200` response documents (in document
 * order; outside the contract, every format that writes DTOs); a choice outside them falls through to the next rule.
 */
import type { Request } from 'express';
import { Keywords, keywordValue } from '../contract/keywords.ts';
import { successMediaTypes, type OperationRecord } from '../contract/operations.ts';
import type { FormatEntry, FormatRegistry } from '../formats/registry.ts';
import type { ResponseForm } from './request-context.ts';

function fromAccept(accept: string | undefined, candidates: readonly FormatEntry[]): FormatEntry | undefined {
  const wanted = (accept ?? '').split(',').map((entry) => entry.split(';')[0]!.trim().toLowerCase());
  return candidates.find((entry) => wanted.some((media) => media.startsWith(entry.mediaType)));
}

export function negotiate(req: Request, registry: FormatRegistry, operation: OperationRecord | undefined, extensionFormat: string | undefined): ResponseForm {
  const candidates = operation ? registry.offered(successMediaTypes(operation)) : registry.dtoFormats;
  const offered = (format: string | undefined) => (format === undefined ? undefined : candidates.find((e) => e.format === format));
  const query = req.query as Record<string, unknown>;

  const wrappers = registry.wrappers.flatMap((entry) => {
    const value = keywordValue(query, entry.wraps!.keyword);
    return value !== undefined && entry.wraps!.accepts(value) ? [{ entry, value }] : [];
  });
  const chosen =
    offered(extensionFormat) ??
    wrappers.map((w) => offered(w.entry.wraps!.format)).find((e) => e !== undefined) ??
    offered(keywordValue(query, Keywords.format)?.split('.')[0]!.toLowerCase()) ??
    offered(req.path.split('/')[1]?.toLowerCase()) ??
    fromAccept(req.get('accept'), candidates) ??
    candidates[0] ??
    registry.fallback;
  const wrapper = wrappers.find((w) => w.entry.wraps!.format === chosen.format);
  return wrapper ? { entry: chosen, wrapper } : { entry: chosen };
}
