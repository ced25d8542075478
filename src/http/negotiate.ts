/**
 * Response format negotiation, run once per request, ServiceStack's priority: path extension, then a wrapper's
 * keyword (`?callback` → JSON), then `?format=`, then a format-named first path segment (`/json/reply/...`), then
 * Accept, then the default. The candidates are the formats the operation's `200` response documents (in document
 * order; outside the contract, every format that writes DTOs); a choice outside them falls through to the next rule.
 * Each operation's candidates are worked out once, on its first request, and kept.
 */
import type { Request } from 'express';
import { Keywords, keywordValue } from '../contract/keywords.ts';
import { successMediaTypes, type OperationRecord } from '../contract/operations.ts';
import type { FormatEntry, FormatRegistry } from '../formats/registry.ts';
import type { ResponseForm } from './request-context.ts';

interface Candidates {
  /** In preference order; the first is the default. */
  list: readonly FormatEntry[];
  byFormat: ReadonlyMap<string, FormatEntry>;
}

export interface FormatHints {
  /** The format a path suffix named. */
  extension?: string;
  /** The format a pre-defined route's prefix named (else the path's first segment is read). */
  prefix?: string;
}

export type Negotiate = (req: Request, operation: OperationRecord | undefined, hints: FormatHints) => ResponseForm;

export function createNegotiator(registry: FormatRegistry): Negotiate {
  const compile = (list: readonly FormatEntry[]): Candidates => ({
    list,
    byFormat: new Map(list.map((e) => [e.format, e])),
  });
  const outsideContract = compile(registry.dtoFormats);
  const perOperation = new Map<OperationRecord, Candidates>();
  const candidatesOf = (operation: OperationRecord | undefined): Candidates => {
    if (!operation) return outsideContract;
    let candidates = perOperation.get(operation);
    if (!candidates)
      perOperation.set(operation, (candidates = compile(registry.offered(successMediaTypes(operation)))));
    return candidates;
  };

  return (req, operation, hints) => {
    const { list, byFormat } = candidatesOf(operation);
    const query = req.query as Record<string, unknown>;
    let wrapper: ResponseForm['wrapper'];
    for (const entry of registry.wrappers) {
      const value = keywordValue(query, entry.wraps!.keyword);
      if (value !== undefined && entry.wraps!.accepts(value) && byFormat.has(entry.wraps!.format)) {
        wrapper = { entry, value };
        break;
      }
    }
    const chosen =
      (hints.extension === undefined ? undefined : byFormat.get(hints.extension)) ??
      (wrapper && byFormat.get(wrapper.entry.wraps!.format)) ??
      byFormat.get(keywordValue(query, Keywords.format)?.split('.')[0]?.toLowerCase() ?? '') ??
      byFormat.get(hints.prefix ?? req.path.split('/')[1]?.toLowerCase() ?? '') ??
      fromAccept(req.get('accept'), list) ??
      list[0] ??
      registry.fallback;
    return wrapper && wrapper.entry.wraps!.format === chosen.format ? { entry: chosen, wrapper } : { entry: chosen };
  };
}

function fromAccept(accept: string | undefined, candidates: readonly FormatEntry[]): FormatEntry | undefined {
  if (!accept) return undefined;
  const wanted = accept.split(',').map((entry) => entry.split(';')[0]!.trim().toLowerCase());
  return candidates.find((entry) => wanted.some((media) => media.startsWith(entry.mediaType)));
}
