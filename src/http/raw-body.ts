/**
 * A response a handler has already rendered (CSV, XLSX, HTML): the thin route sends these bytes as they are,
 * bypassing the DTO writer (and the JSON response validator, which has nothing to check in them).
 */
import type { Response } from 'express';

export class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: Buffer,
    /** Download file name: sent as `Content-Disposition: attachment`. */
    readonly attachment?: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function sendRaw(res: Response, raw: RawBody): void {
  res.vary('Accept');
  if (raw.attachment) res.attachment(raw.attachment); // sets Content-Disposition (content-disposition package)
  for (const [name, value] of Object.entries(raw.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', raw.contentType);
  res.send(raw.body);
}
