/**
 * `multipart/form-data` bodies, read by busboy into flat form fields (name as sent → value, or values when a name
 * repeats), the shape an urlencoded form has: ASP.NET's Request.Form, which 4.5 bound, kept names such as
 * `Locations[0]` as they were. Names are never expanded into nested objects or arrays here (multer's append-field
 * did: a ~100-byte field `CompanyId[100000000]` made a sparse array of length 10^8 that froze the process when it
 * was read, and `X[4294967294]` followed by `X[a]` walked 4·10^9 holes); the binder reads bracketed names
 * (binding.ts) and refuses an index above the array limit.
 *
 * Every body has a budget, and going over any part of it is a 413 naming that limit: the whole body at most
 * `bodyBytes` (as every other body), each field value at most `bodyBytes`, at most `fields` fields and `parts`
 * parts, field names of at most `fieldNameBytes`; file parts are not read (`files` = 0): no operation takes a file.
 */
import { createRequire } from 'node:module';
import type busboy from 'busboy';
import type { Request } from 'express';
import { appError, type AppError } from '../errors/app-error.ts';
import { discardRest } from './discard-rest.ts';

export type FormFields = Record<string, string | string[]>;

export interface MultipartLimits {
  /** Largest body in bytes (BODY_LIMIT_BYTES): also the largest field value. */
  bodyBytes: number;
  /** Most fields of one body. */
  fields: number;
  /** Most parts of one body (fields, and parts that are skipped: no name, not form-data). */
  parts: number;
  /** Longest field name in bytes. */
  fieldNameBytes: number;
}

export const MULTIPART_FIELD_LIMITS = { fields: 1000, parts: 2000, fieldNameBytes: 256 } as const;

function exceeded(limit: string, max: number): AppError {
  return appError('BodyLimitExceeded', { limit, max });
}

function addField(fields: FormFields, name: string, value: string): void {
  const previous = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (previous === undefined) fields[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else fields[name] = [previous, value];
}

let busboyModule: typeof busboy | undefined;
/** busboy, loaded for the first multipart body (the start's requests have none). */
const loadBusboy = () => (busboyModule ??= createRequire(import.meta.url)('busboy') as typeof busboy);

/** Resolves with the body's fields; rejects with a 413 naming the limit gone over, or a 400 for a malformed body. */
export function readMultipartForm(req: Request, limits: MultipartLimits): Promise<FormFields> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.bodyBytes) {
    discardRest(req);
    return Promise.reject(exceeded('body bytes', limits.bodyBytes));
  }
  let parser: busboy.Busboy;
  try {
    parser = loadBusboy()({
      headers: req.headers,
      defCharset: 'utf8',
      limits: {
        fieldNameSize: limits.fieldNameBytes,
        fieldSize: limits.bodyBytes,
        fields: limits.fields,
        parts: limits.parts,
        files: 0,
        fileSize: limits.bodyBytes,
        headerPairs: 32,
      },
    });
  } catch (cause) {
    return Promise.reject(appError('BodyReadFailed', { reason: (cause as Error).message }, { cause }));
  }
  return new Promise<FormFields>((resolve, reject) => {
    const fields: FormFields = Object.create(null) as FormFields;
    let received = 0;
    let settled = false;
    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {}); // a late parse error of a body already refused
      discardRest(req);
      reject(error);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyBytes) fail(exceeded('body bytes', limits.bodyBytes));
    };
    parser.on('field', (name, value, info) => {
      // busboy bounds a part's headers (16 KB) but not the name within them.
      if (info.nameTruncated || Buffer.byteLength(name) > limits.fieldNameBytes)
        return fail(exceeded('field name bytes', limits.fieldNameBytes));
      if (info.valueTruncated) return fail(exceeded('field bytes', limits.bodyBytes));
      addField(fields, name, value);
    });
    parser.on('file', (_name, stream) => {
      stream.resume();
      fail(exceeded('files', 0));
    });
    parser.on('filesLimit', () => fail(exceeded('files', 0)));
    parser.on('fieldsLimit', () => fail(exceeded('fields', limits.fields)));
    parser.on('partsLimit', () => fail(exceeded('parts', limits.parts)));
    parser.on('error', (error: Error) => fail(appError('BodyReadFailed', { reason: error.message }, { cause: error })));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      resolve(fields);
    });
    req.on('data', count);
    req.pipe(parser);
  });
}
