/**
 * An answer written whole: status, every header and the body handed to node at once (`writeHead` with the header
 * list, then `end`), as Express's res.send would write the same answer (the app's ETag function, `Content-Length`)
 * but without setting each header on the response first. Taken only where res.send would add nothing else: no
 * header set on the response yet, no conditional request (res.send may answer 304), not HEAD, no download.
 */
import type { Request, Response } from 'express';
import type { Written } from '../formats/registry.ts';
import { takePendingHeaders } from './pending-headers.ts';

type EtagFunction = (body: string | Buffer, encoding?: BufferEncoding) => string | undefined;

export function canWriteWhole(req: Request, res: Response, written: Written): boolean {
  const headers = req.headers;
  return req.method !== 'HEAD'
    && written.attachment === undefined
    && headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined
    && res.getHeaderNames().length === 0;
}

export function writeWhole(req: Request, res: Response, contentType: string, written: Written): void {
  const headers = takePendingHeaders(res);
  headers.push('Vary', 'Accept');
  for (const [name, value] of Object.entries(written.headers ?? {})) headers.push(name, value);
  const body = written.body;
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  headers.push('Content-Type', contentType, 'Content-Length', String(length));
  const etag = (req.app.get('etag fn') as EtagFunction | undefined)?.(body, 'utf8');
  if (etag) headers.push('ETag', etag);
  res.writeHead(res.statusCode, headers);
  res.end(body);
}
