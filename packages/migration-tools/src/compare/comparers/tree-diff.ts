/** Field-by-field differences of two parsed bodies (microdiff), each with its JSONPath. */
import microdiff from 'microdiff';
import { isDeepStrictEqual } from 'node:util';
import type { FieldDiff } from '../types.ts';
import { jsonPath } from './paths.ts';

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] =>
  typeof value === 'object' && value !== null;

export function treeDiff(a: unknown, b: unknown, root: (string | number)[] = ['$']): FieldDiff[] {
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) {
    return isDeepStrictEqual(a, b) ? [] : [{ path: jsonPath(root), segments: root, kind: 'changed', old: a, new: b }];
  }
  return microdiff(a, b).map((d) => {
    const segments = [...root, ...d.path];
    const base = { path: jsonPath(segments), segments };
    if (d.type === 'CREATE') return { ...base, kind: 'added', new: d.value };
    if (d.type === 'REMOVE') return { ...base, kind: 'removed', old: d.oldValue };
    return { ...base, kind: 'changed', old: d.oldValue, new: d.value };
  });
}
