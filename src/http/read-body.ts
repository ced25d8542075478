/**
 * Request bodies in the registry's other formats: after express.json has read JSON, a body of a media type whose
 * registry entry can `read` (a form, XML, JSV, ... as entries add them) is read as text within the body limit and
 * turned into the request DTO's properties by that entry; the legacy binder then binds them like a JSON body.
 * Bodies no entry reads are left to the contract's validator (415 for an undocumented media type).
 */
import express, { type RequestHandler } from 'express';
import { AppError, appError } from '../errors/app-error.ts';
import type { FormatRegistry } from '../formats/registry.ts';
import { parseContentType } from './content-type.ts';
import { contextOf, requestDtoName } from './request-context.ts';

export function readBody(formats: FormatRegistry, limitBytes: number): RequestHandler {
  const readers = new Map(formats.entries.filter((e) => e.read).map((e) => [e.mediaType, e]));
  const asText = express.text({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
    const context = contextOf(res);
    const { mediaType } = parseContentType(req.headers['content-type']);
    const reader = readers.get(mediaType);
    if (!reader || req.body !== undefined || !context.operation?.binding.body) return next();
    asText(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        req.body = reader.read!(String(req.body ?? ''), { operation: context.operation! });
        next();
      } catch (cause) {
        // A reader's own error already names the media type and the DTO: passed on as it is, not wrapped again.
        if (cause instanceof AppError) return next(cause);
        next(
          appError(
            'BodyUnreadable',
            { dto: requestDtoName(context), reason: cause instanceof Error ? cause.message : String(cause) },
            { cause },
          ),
        );
      }
    });
  };
}
