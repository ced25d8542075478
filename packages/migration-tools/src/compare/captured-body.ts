/**
 * How a captured answer keeps its body, for replay and the shadow proxy alike: a body of a text media type that is
 * valid UTF-8 as text (compared field by field), any other bytes as base64 with `binary` (compared byte for byte), so
 * a text-typed body in another encoding is never mangled by a UTF-8 decode into U+FFFD and found equal to another.
 */
import { isUtf8 } from 'node:buffer';
import { comparerFor, isTextMediaType, mediaTypeOf } from './comparers/registry.ts';
import type { Captured } from './types.ts';

export function capturedBody(bytes: Buffer, contentType: string | undefined): Pick<Captured, 'body' | 'binary'> {
  if (bytes.length === 0) return { body: '' };
  const mediaType = mediaTypeOf(contentType);
  const textType = isTextMediaType(mediaType) || comparerFor(mediaType, false).name === 'text';
  return textType && isUtf8(bytes)
    ? { body: bytes.toString('utf8') }
    : { body: bytes.toString('base64'), binary: true };
}
