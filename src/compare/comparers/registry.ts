/**
 * Body comparers by media type, like ServiceStack's ContentTypes: the first that accepts a response's media type
 * compares it. A body its comparer cannot parse (invalid JSON under application/json) is compared as text.
 */
import { binaryComparer } from './binary.ts';
import type { BodyComparer, ParsedBody } from './comparer.ts';
import { csvComparer } from './csv.ts';
import { jsonComparer } from './json.ts';
import { jsonpComparer } from './jsonp.ts';
import { textComparer } from './text.ts';
import { treeDiff } from './tree-diff.ts';
import { xmlComparer } from './xml.ts';
import type { FieldDiff } from '../types.ts';

export const BODY_COMPARERS: readonly BodyComparer[] = [jsonComparer, jsonpComparer, xmlComparer, csvComparer, textComparer, binaryComparer];

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether bodies of this media type are read as text (else kept as bytes). */
export function isTextMediaType(mediaType: string): boolean {
  return BODY_COMPARERS.some((c) => c !== binaryComparer && c.accepts(mediaType)) || /javascript|json|xml|csv|html/.test(mediaType);
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

function parseWith(comparer: BodyComparer, body: string): ParsedBody | undefined {
  try {
    return comparer.parse(body);
  } catch {
    return undefined;
  }
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

/** Compares two bodies with the comparer of their (shared) media type; falls back to text when either does not parse. */
export function compareBodies(comparer: BodyComparer, oldBody: string, newBody: string): BodyComparison {
  let used = comparer;
  let a = parseWith(used, oldBody);
  let b = parseWith(used, newBody);
  if (!a || !b) {
    used = textComparer;
    a = textComparer.parse(oldBody);
    b = textComparer.parse(newBody);
  }
  return { comparer: used.name, diffs: (used.diff ?? defaultDiff)(a, b), old: a, new: b };
}
