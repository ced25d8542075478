/**
 * The served answer as compare's replay captures a host's answer (`Captured`): headers by lower-cased name, a UTF-8
 * text body as text and any other as base64 (compare's capturedBody), each base URL the answer may name replaced by
 * `{host}` so that two hosts compare. The served bytes go to the client untouched; this is the copy kept for the
 * comparison (decompressed when the host compressed it, as the mirror's fetch does), made on the mirror's thread.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { capturedBody } from '../compare/captured-body.ts';
import type { Captured } from '../compare/types.ts';

const DECODERS: Record<string, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

/** Every base in `bases` (an origin, maybe with a path) replaced by `{host}`, plain and with JSON's escaped slashes. */
export function rebase(text: string, bases: readonly string[]): string {
  let out = text;
  for (const base of bases) {
    const plain = base.replace(/\/+$/, '');
    out = out.split(plain).join('{host}').split(plain.replace(/\//g, '\\/')).join('{host}');
  }
  return out;
}

/** A captured answer with more bases replaced (the proxy's own address, which a host that honours the client's Host names). */
export function rebaseCaptured(captured: Captured, bases: readonly string[]): Captured {
  const headers = Object.fromEntries(Object.entries(captured.headers).map(([name, value]) => [name, rebase(value, bases)]));
  return { ...captured, headers, body: captured.binary ? captured.body : rebase(captured.body, bases) };
}

function decoded(bytes: Buffer, encoding: string | undefined): Buffer {
  const decode = DECODERS[(encoding ?? '').trim().toLowerCase()];
  if (!decode || bytes.length === 0) return bytes;
  try {
    return decode(bytes);
  } catch {
    return bytes;
  }
}

export function captureAnswer(status: number, headers: Record<string, string>, bytes: Buffer, bases: readonly string[], ms: number): Captured {
  const captured: Captured = { status, headers, ...capturedBody(decoded(bytes, headers['content-encoding']), headers['content-type']), ms };
  return rebaseCaptured(captured, bases);
}
