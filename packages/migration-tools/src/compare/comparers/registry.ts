/**
 * Body comparers by media type, like ServiceStack's ContentTypes: the first that accepts a response's media type
 * compares it. A body its comparer cannot parse (invalid JSON under application/json) is compared as text.
 */
import { binaryComparer } from './binary.ts';
import type { BodyComparer, ParsedBody } from './comparer.ts';
import { csvComparer } from './csv.ts';
import { jsonComparer } from './json.ts';
import { jsonpComparer } from './jsonp.ts';
import { jsvComparer } from './jsv.ts';
import { textComparer } from './text.ts';
import { treeDiff } from './tree-diff.ts';
import { xmlComparer } from './xml.ts';
import type { FieldDiff } from '../types.ts';

export const BODY_COMPARERS: readonly BodyComparer[] = [
  jsonComparer,
  jsonpComparer,
  xmlComparer,
  jsvComparer,
  csvComparer,
  textComparer,
  binaryComparer,
];

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether bodies of this media type are read as text (else kept as bytes). */
export function isTextMediaType(mediaType: string): boolean {
  return (
    BODY_COMPARERS.some((c) => c !== binaryComparer && c.accepts(mediaType)) ||
    /javascript|json|xml|csv|html/.test(mediaType)
  );
}

export function comparerFor(mediaType: string, binary: boolean): BodyComparer {
  if (binary) return binaryComparer;
  return BODY_COMPARERS.find((c) => c.accepts(mediaType)) ?? textComparer;
}

export interface BodyComparison {
  comparer: string;
  diffs: FieldDiff[];
  old?: ParsedBody;
  new?: ParsedBody;
}

type Parsed = { ok: true; body: ParsedBody } | { ok: false; reason: string };

function parseWith(comparer: BodyComparer, body: string): Parsed {
  try {
    return { ok: true, body: comparer.parse(body) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

function validity(comparer: BodyComparer, parsed: Parsed): string {
  return parsed.ok ? `valid ${comparer.name}` : `not valid ${comparer.name}: ${parsed.reason}`;
}

function defaultDiff(a: ParsedBody, b: ParsedBody): FieldDiff[] {
  const out = treeDiff(a.tree, b.tree);
  for (const name of new Set([...Object.keys(a.meta ?? {}), ...Object.keys(b.meta ?? {})])) {
    const x = a.meta?.[name];
    const y = b.meta?.[name];
    if (x !== y) out.unshift({ path: name, kind: 'changed', old: x, new: y });
  }
  return out;
}

/**
 * Compares two bodies with the comparer of their (shared) media type. When either does not parse, both are compared
 * as text; when only one parses, that is a difference of its own (`format()`: a CSV row split by an unquoted line
 * break, a JSON body cut short), since a client reading the other one fails or reads something else.
 */
export function compareBodies(comparer: BodyComparer, oldBody: string, newBody: string): BodyComparison {
  const a = parseWith(comparer, oldBody);
  const b = parseWith(comparer, newBody);
  if (a.ok && b.ok)
    return { comparer: comparer.name, diffs: (comparer.diff ?? defaultDiff)(a.body, b.body), old: a.body, new: b.body };
  const oldText = textComparer.parse(oldBody);
  const newText = textComparer.parse(newBody);
  const diffs = textComparer.diff!(oldText, newText);
  if (a.ok !== b.ok)
    diffs.unshift({ path: 'format()', kind: 'changed', old: validity(comparer, a), new: validity(comparer, b) });
  return { comparer: textComparer.name, diffs, old: oldText, new: newText };
}
