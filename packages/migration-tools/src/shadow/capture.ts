/**
 * The served answer as compare's replay captures a host's answer (`Captured`): headers by lower-cased name, a UTF-8
 * text body as text and any other as base64 (compare's capturedBody), each base URL the answer may name replaced by
 * `{host}` so that two hosts compare. The served bytes go to the client untouched; this is the copy kept for the
 * comparison (decompressed when the host compressed it, as the mirror's fetch does), made on the mirror's thread.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { capturedBody } from '../compare/captured-body.ts';
import { rebaseCaptured } from '../compare/replay.ts';
import type { Captured } from '../compare/types.ts';

const DECODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

function decoded(bytes: Buffer, encoding: string | undefined): Buffer {
  const decode = DECODERS[(encoding ?? '').trim().toLowerCase()];
  if (!decode || bytes.length === 0) return bytes;
  try {
    return decode(bytes);
  } catch {
    return bytes;
  }
}

export function captureAnswer(
  status: number,
  headers: Record<string, string>,
  bytes: Buffer,
  bases: readonly string[],
  ms: number,
): Captured {
  const captured: Captured = {
    status,
    headers,
    ...capturedBody(decoded(bytes, headers['content-encoding']), headers['content-type']),
    ms,
  };
  return rebaseCaptured(captured, bases);
}
