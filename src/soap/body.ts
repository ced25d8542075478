/**
 * Reads a SOAP request body as text: only XML media types, only identity encoding, never more than the limit in
 * memory. A Content-Length above the limit is refused before reading; a streamed body is refused as soon as it passes
 * the limit (the rest is discarded, not buffered).
 */
import type { Request } from 'express';
import { appError, type AppError } from '../errors/app-error.ts';
import type { ContentTypeInfo } from '../http/content-type.ts';

/** Media types a SOAP message may come in: SOAP 1.2's own, SOAP 1.1's text/xml, and generic XML. */
export function isXmlMediaType(mediaType: string): boolean {
  return (
    mediaType === 'application/soap+xml' ||
    mediaType === 'text/xml' ||
    mediaType === 'application/xml' ||
    /^application\/[a-z0-9.+-]+\+xml$/.test(mediaType)
  );
}

/** Throws UnsupportedMediaType unless the request declares an XML body (an absent Content-Type is read as XML). */
export function assertXmlRequest(req: Request, contentType: ContentTypeInfo): void {
  if (contentType.mediaType && !isXmlMediaType(contentType.mediaType)) {
    throw appError('SoapContentTypeUnsupported', { mediaType: contentType.mediaType });
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    throw appError('ContentEncodingUnsupported', { encoding });
  }
}

function decoderFor(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset ?? 'utf-8', { fatal: true, ignoreBOM: false });
  } catch {
    throw appError('CharsetUnsupported', { charset: String(charset) });
  }
}

function tooLarge(limit: number): AppError {
  return appError('BodyTooLargeBytes', { limit });
}

/**
 * Resolves with the body decoded as text. Rejects with RequestEntityTooLarge (413) above `limit` bytes and with
 * SerializationException when the bytes are not valid in the declared charset.
 */
export function readBodyText(req: Request, limit: number, charset?: string): Promise<string> {
  const decoder = decoderFor(charset);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));

  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;

    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      chunks.length = 0;
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        fail(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      settled = true;
      cleanup();
      try {
        resolve(decoder.decode(Buffer.concat(chunks, received)));
      } catch (error) {
        reject(appError('BodyNotText', {}, { cause: error }));
      }
    };
    const onError = (error: Error) => fail(error);
    const onAborted = () => fail(new Error('request aborted'));

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
