/** Any other body (XLSX, images): equal bytes or one difference naming sizes and SHA-256 digests. */
import { createHash } from 'node:crypto';
import type { BodyComparer } from './comparer.ts';

export const binaryComparer: BodyComparer = {
  name: 'binary',
  accepts: () => true,
  parse(base64) {
    const bytes = Buffer.from(base64, 'base64');
    const summary = `${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}…`;
    return { tree: summary, pretty: summary };
  },
};
