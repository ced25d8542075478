/**
 * Text line by line (the `diff` package's LCS): a changed, added or removed line is one difference (`$[line index]`).
 */
import { diffArrays } from 'diff';
import type { FieldDiff } from '../types.ts';
import type { BodyComparer } from './comparer.ts';

export const textComparer: BodyComparer = {
  name: 'text',
  accepts: (mediaType) => mediaType.startsWith('text/') || mediaType === '',
  parse(body) {
    return { tree: body.split(/\r?\n/), pretty: body };
  },
  diff(a, b) {
    const out: FieldDiff[] = [];
    let oldLine = 0;
    let newLine = 0;
    const parts = diffArrays(a.tree as string[], b.tree as string[]);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const next = parts[i + 1];
      if (part.removed && next?.added) {
        // A run of removed lines followed by added ones: changed lines pairwise, the rest added or removed.
        const n = Math.max(part.value.length, next.value.length);
        for (let k = 0; k < n; k++) {
          const o = part.value[k];
          const nw = next.value[k];
          if (o !== undefined && nw !== undefined)
            out.push({ path: `$[${oldLine + k}]`, segments: ['$', oldLine + k], kind: 'changed', old: o, new: nw });
          else if (o !== undefined)
            out.push({ path: `$[${oldLine + k}]`, segments: ['$', oldLine + k], kind: 'removed', old: o });
          else out.push({ path: `$[${newLine + k}]`, segments: ['$', newLine + k], kind: 'added', new: nw });
        }
        oldLine += part.value.length;
        newLine += next.value.length;
        i++;
      } else if (part.removed) {
        part.value.forEach((line, k) =>
          out.push({ path: `$[${oldLine + k}]`, segments: ['$', oldLine + k], kind: 'removed', old: line }),
        );
        oldLine += part.value.length;
      } else if (part.added) {
        part.value.forEach((line, k) =>
          out.push({ path: `$[${newLine + k}]`, segments: ['$', newLine + k], kind: 'added', new: line }),
        );
        newLine += part.value.length;
      } else {
        oldLine += part.value.length;
        newLine += part.value.length;
      }
    }
    return out;
  },
};
