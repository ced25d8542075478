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
import { FORM_MEDIA_TYPES } from './content-type.ts';
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
      fromAccept(req.get('accept'), req.get('content-type'), list) ??
      list[0] ??
      registry.fallback;
    return wrapper && wrapper.entry.wraps!.format === chosen.format ? { entry: chosen, wrapper } : { entry: chosen };
  };
}

/** A media type without its parameters, lower-cased (ServiceStack's ContentFormat.GetRealContentType). */
function mediaTypeOf(value: string): string {
  return value.split(';')[0]!.trim().toLowerCase();
}

/**
 * ServiceStack 4.5.14's GetResponseContentType: Accept's entries are matched against the preferred formats (JSON,
 * HTML, XML, JSV: `preferred` entries) in the candidates' order, not Accept's, q-values ignored; a request body's own
 * type among them wins at once. Failing those, `*\/*` gives the request body's type, else the default (JSON); only
 * then are the other formats (CSV, XLSX) matched by prefix, in Accept's order. So `text/csv, *\/*;q=0.1` is JSON.
 */
function fromAccept(
  accept: string | undefined,
  contentType: string | undefined,
  candidates: readonly FormatEntry[],
): FormatEntry | undefined {
  if (!accept) return undefined;
  const entries = accept
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bodyType = contentType === undefined ? undefined : mediaTypeOf(contentType);
  // 4.5.14 compared the preferred type with the request's Content-Type as sent (a form's counts as the default's).
  const bodyIsForm = bodyType !== undefined && FORM_MEDIA_TYPES.has(bodyType);
  const bodyRaw = bodyIsForm ? candidates[0]?.mediaType : contentType;
  const preferred = candidates.filter((entry) => entry.preferred);
  const named = new Set<FormatEntry>();
  let acceptsAnything = false;
  for (const entry of entries) {
    const media = mediaTypeOf(entry);
    if (media === '*/*') acceptsAnything = true;
    for (const candidate of preferred) {
      if (named.has(candidate) || !media.startsWith(candidate.mediaType)) continue;
      if (candidate.mediaType === bodyRaw) return candidate;
      named.add(candidate);
    }
  }
  const chosen = preferred.find((candidate) => named.has(candidate));
  if (chosen) return chosen;
  if (acceptsAnything)
    return (
      (bodyType !== undefined && !bodyIsForm
        ? candidates.find((candidate) => candidate.mediaType === bodyType)
        : undefined) ?? candidates[0]
    );
  // Matched as .NET Framework listed Accept (ParseMultivalueHeader): only the one space after a comma is skipped, so
  // `a,  text/csv` does not name CSV.
  for (const entry of accept.split(',').map((value, i) => (i > 0 && value.startsWith(' ') ? value.slice(1) : value))) {
    const lower = entry.toLowerCase();
    const other = candidates.find((candidate) => !candidate.preferred && lower.startsWith(candidate.mediaType));
    if (other) return other;
  }
  return undefined;
}
