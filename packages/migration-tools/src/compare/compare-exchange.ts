/** Everything a client reads of two answers, compared: transport error, status, the chosen headers, the body. */
import type { ParsedBody } from './comparers/comparer.ts';
import type { BodyComparer } from './comparers/comparer.ts';
import { compareBodies, comparerFor, mediaTypeOf } from './comparers/registry.ts';
import { textComparer } from './comparers/text.ts';
import type { Captured, FieldDiff } from './types.ts';

export interface AnswerComparison {
  diffs: FieldDiff[];
  /** The body comparer used (json, jsonp, xml, csv, text, binary), when bodies were compared field by field. */
  comparer?: string;
  old?: ParsedBody;
  new?: ParsedBody;
}

export function compareAnswers(a: Captured, b: Captured, headers: readonly string[], method: string): AnswerComparison {
  const diffs: FieldDiff[] = [];
  if ((a.error ?? '') !== (b.error ?? ''))
    diffs.push({ path: 'error', kind: 'changed', old: a.error ?? null, new: b.error ?? null });
  if (a.status !== b.status) diffs.push({ path: 'status', kind: 'changed', old: a.status, new: b.status });
  for (const name of headers) {
    const x = a.headers[name.toLowerCase()];
    const y = b.headers[name.toLowerCase()];
    if (x === y) continue;
    diffs.push({
      path: `header ${name}`,
      kind: x === undefined ? 'added' : y === undefined ? 'removed' : 'changed',
      old: x,
      new: y,
    });
  }
  if (method === 'HEAD' || (a.body === b.body && !!a.binary === !!b.binary)) return { diffs };
  const ca = comparerFor(mediaTypeOf(a.headers['content-type']), !!a.binary);
  const cb = comparerFor(mediaTypeOf(b.headers['content-type']), !!b.binary);
  if (ca !== cb) {
    diffs.push({
      path: 'body',
      kind: 'changed',
      old: `${ca.name} body (${a.body.length} chars)`,
      new: `${cb.name} body (${b.body.length} chars)`,
    });
    return { diffs, old: parsedOrText(ca, a.body), new: parsedOrText(cb, b.body) };
  }
  const body = compareBodies(ca, a.body, b.body);
  return { diffs: [...diffs, ...body.diffs], comparer: body.comparer, old: body.old, new: body.new };
}

function parsedOrText(comparer: BodyComparer, body: string): ParsedBody {
  try {
    return comparer.parse(body);
  } catch {
    return textComparer.parse(body);
  }
}
