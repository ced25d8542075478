/**
 * The one response writer. Services hand back values (a DTO, or a RichResult such as a built report); errors arrive
 * as AppErrors. Both are written here, in the response form negotiated once per request (src/http/negotiate.ts)
 * from the format registry, or by the request's edge when it speaks its own error form (the SOAP endpoint: a fault,
 * also on time-out).
 *
 * DTOs go through `res.json`, which this writer installs first: express-openapi-validator wraps `res.json` later and
 * so validates every DTO against openapi/. A RichResult the negotiated format renders whole (the report's page, CSV,
 * XLSX) is written directly. A format that has no form for a value falls back to the default format (JSON).
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { keywordText } from '../contract/keywords.ts';
import { dtoTypeOf, responseFor, type OperationRecord, type OperationTable } from '../contract/operations.ts';
import { NOT_MODIFIED, RichResult, dtoOf, type Revalidate } from '../contract/service-result.ts';
import { toAppError, type AppError } from '../errors/app-error.ts';
import type { FormatEntry, FormatRegistry, ListWriter, WriteContext, Written } from '../formats/registry.ts';
import { publicPath } from './base-url.ts';
import { answerNotModified, revalidator, writeValidators } from './conditional-get.ts';
import { createNegotiator } from './negotiate.ts';
import { contextOf, requestDtoName, type ResponseForm } from './request-context.ts';
import { fromLibraryError } from './request-errors.ts';
import { setPendingHeaders, writeHeadWith } from './response-head.ts';
import { toErrorResponse } from './response-status.ts';

export interface ResponseWriter {
  /** Installed before the response validator: makes `res.json` the DTO writer. */
  install: RequestHandler;
  /** Answers a service's result: at once for a DTO, else the returned promise settles when it is written. */
  send(req: Request, res: Response, result: unknown): Promise<void> | undefined;
  /** A GET or HEAD's conditional check for the service, in the request's negotiated form (conditional-get.ts). */
  revalidator(req: Request, res: Response): Revalidate | undefined;
  /**
   * A batch's answer list measured as it grows: each call adds an answer and gives the bytes the list so far takes
   * written in the response's negotiated form (its wrapper included), as `res.json` would send it.
   */
  listMeter(res: Response): (item: unknown) => number;
  /** The error handler: anything thrown becomes an AppError, answered in the edge's form. */
  errorHandler: ErrorRequestHandler;
}

export interface ResponseWriterOptions {
  formats: FormatRegistry;
  operations: OperationTable;
  debug: boolean;
  logger: Logger;
}

export function createResponseWriter({ formats, operations, debug, logger }: ResponseWriterOptions): ResponseWriter {
  const negotiate = createNegotiator(formats);
  const formOf = (req: Request, res: Response): ResponseForm => {
    const context = contextOf(res);
    context.form ??= negotiate(req, context.operation, {
      extension: context.extensionFormat,
      prefix: context.prefixFormat,
    });
    return context.form;
  };
  const writeContext = (req: Request, res: Response, wrapped = false): WriteContext => {
    const { operation, serviceStarted } = contextOf(res);
    return new ResponseWriteContext(operations, req, operation, res.statusCode, serviceStarted === true, wrapped);
  };
  const sendBody = (res: Response, contentType: string, written: Written) => {
    const type = written.contentType ?? contentType;
    // Written as is with node:http's own end(): the Content-Type exactly as set (res.send would add a charset to a
    // string), no hash of the body for an ETag (app.ts; a report's tag is conditional-get.ts's), and node:http sends
    // no body to HEAD.
    const { body } = written;
    const length = bytesOf(written);
    // Most answers (no header set by a step, no download name, no header of the format's own, no entity tag): every
    // header in one writeHead, in the order the headers are set one by one below.
    const plain =
      written.attachment === undefined && written.headers === undefined && contextOf(res).entityTag === undefined;
    if (plain && writeHeadWith(res, ['Vary', 'Accept', 'Content-Type', type, 'Content-Length', String(length)]))
      return void res.end(body, 'utf8');
    setPendingHeaders(res);
    // Most answers have no Vary yet: set it without parsing one (res.vary merges into an existing one).
    if (res.hasHeader('Vary')) res.vary('Accept');
    else res.setHeader('Vary', 'Accept');
    if (written.attachment) res.attachment(written.attachment); // Content-Disposition (content-disposition package)
    if (written.headers) for (const [name, value] of Object.entries(written.headers)) res.setHeader(name, value);
    writeValidators(res);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', length);
    res.end(body, 'utf8');
  };

  /** The entry that writes the response's DTOs, the wrapper around its output if any, and what the entry is told. */
  const dtoForm = (res: Response) => {
    const req = res.req;
    const form = formOf(req, res);
    const entry = form.entry.writeDto ? form.entry : formats.fallback;
    // 4.5 wrapped only the service's own answers; an error raised before it (binding, unknown operation,
    // authentication) is plain JSON with its status even when ?callback= is given.
    const wrapper = form.wrapper && entry === form.entry && contextOf(res).serviceStarted ? form.wrapper : undefined;
    return { entry, wrapper, ctx: writeContext(req, res, wrapper !== undefined) };
  };
  /** The batch answers each response's listMeter wrote, by response: its list is written from their texts. */
  const meteredLists = new WeakMap<Response, MeteredList>();
  /** A DTO as the response's negotiated form writes it, and the Content-Type it is sent with. */
  const renderDto = (res: Response, dto: unknown): [contentType: string, written: Written] => {
    const { entry, wrapper, ctx } = dtoForm(res);
    const out = meteredLists.get(res)?.written(entry, dto) ?? entry.writeDto!(dto, ctx);
    const written: Written = typeof out === 'string' || Buffer.isBuffer(out) ? { body: out } : out;
    if (!wrapper) return [entry.contentType, written];
    return [wrapper.entry.contentType, { body: wrapper.entry.wraps!.wrap(String(written.body), wrapper.value) }];
  };
  const writeDtoTo = (res: Response, dto: unknown): Response => {
    sendBody(res, ...renderDto(res, dto));
    return res;
  };
  const bytesOf = ({ body }: Written) => (typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length);
  /**
   * A format with a ListWriter (src/formats/framed-list.ts) writes each answer once, as it stands in the list, and
   * counts the list from those texts (with the wrapper's text around it); the list is then written from the same
   * texts, so the bytes sent are those counted. A format without one (HTML) has each answer written alone as a list of
   * one, and the first also as a list of two (its frame's bytes: twice the first less the two), the list written again
   * whole at the end.
   */
  const listMeter = (res: Response): ((item: unknown) => number) => {
    const { entry, wrapper, ctx } = dtoForm(res);
    if (!entry.listWriter) return writtenListMeter(res);
    const wrapperBytes = wrapper ? Buffer.byteLength(wrapper.entry.wraps!.wrap('', wrapper.value)) : 0;
    const list = new MeteredList(entry, (first) => entry.listWriter!(first, ctx));
    meteredLists.set(res, list);
    return (item) => list.add(item) + wrapperBytes;
  };
  const writtenListMeter = (res: Response): ((item: unknown) => number) => {
    let framing: number | undefined;
    let items = 0;
    return (item) => {
      const alone = bytesOf(renderDto(res, [item])[1]);
      framing ??= 2 * alone - bytesOf(renderDto(res, [item, item])[1]);
      items += alone - framing;
      return items + framing;
    };
  };
  // One function for every response (`this` is the response), not a closure per request.
  function writeDto(this: Response, dto: unknown): Response {
    return writeDtoTo(this, dto);
  }
  const install: RequestHandler = (_req, res, next) => {
    res.json = writeDto;
    next();
  };

  const sendRendered = async (req: Request, res: Response, result: RichResult, entry: FormatEntry) => {
    const written = await entry.writeResult!(result, writeContext(req, res));
    if (res.headersSent) return; // answered meanwhile (time-out)
    if (written) return sendBody(res, entry.contentType, written);
    res.json(dtoOf(result));
  };
  // A DTO is written at once; only a result a format renders (a report's page or download) is waited for.
  const send = (req: Request, res: Response, result: unknown): Promise<void> | undefined => {
    if (result === NOT_MODIFIED) {
      setPendingHeaders(res);
      return void answerNotModified(res);
    }
    const { entry } = formOf(req, res);
    if (result instanceof RichResult && entry.writeResult) return sendRendered(req, res, result, entry);
    res.json(dtoOf(result));
    return undefined;
  };

  const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
    const context = contextOf(res);
    const appError: AppError = fromLibraryError(error, context.sentNames, requestDtoName(context)) ?? toAppError(error);
    if (appError.status >= 500) logger.error({ err: appError.cause ?? error, code: appError.code }, 'request failed');
    if (res.writableEnded) return; // already answered (e.g. a request that ran past its time-out)
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (context.edge) {
      setPendingHeaders(res);
      return context.edge.writeError(res, appError);
    }
    res.status(appError.status).json(
      toErrorResponse(appError, {
        debug,
        dtoName: requestDtoName(context),
        inService: context.serviceStarted === true,
      }),
    );
  };

  return {
    install,
    send,
    revalidator: (req, res) => revalidator(req, res, formOf(req, res), publicPath(req)),
    listMeter,
    errorHandler,
  };
}

/** A batch's answers as its format's ListWriter wrote them, one at a time, and the bytes of their list so far. */
class MeteredList {
  private writer?: ListWriter;
  private readonly items: unknown[] = [];
  private readonly texts: string[] = [];
  private itemBytes = 0;

  constructor(
    private readonly entry: FormatEntry,
    private readonly writerFor: (first: unknown) => ListWriter,
  ) {}

  /** Writes `item` after the others; the bytes of the list of them all. */
  add(item: unknown): number {
    this.writer ??= this.writerFor(item);
    const text = this.writer.item(item);
    this.items.push(item);
    this.texts.push(text);
    this.itemBytes += Buffer.byteLength(text);
    return this.writer.bytes(this.items.length, this.itemBytes);
  }

  /**
   * The list `dto` written by `entry` from the texts written of its items, when it is a list of those very items (the
   * batch's answer; an item refused by the limit was written but is not in it); else undefined.
   */
  written(entry: FormatEntry, dto: unknown): ReturnType<ListWriter['write']> | undefined {
    if (entry !== this.entry || !this.writer || !Array.isArray(dto) || !dto.length || dto.length > this.items.length)
      return undefined;
    if (!dto.every((item, i) => item === this.items[i])) return undefined;
    return this.writer.write(this.texts.slice(0, dto.length));
  }
}

/**
 * What a format reads of the response it writes; the costlier parts (XML's root type, the report page's links) are
 * worked out only when a format reads them. A class, not an object literal with getters: a literal's getters are new
 * functions each time, and V8 keeps every such object's shape (a map, long-lived), so the request it reads lived on
 * until a full collection.
 */
class ResponseWriteContext implements WriteContext {
  readonly originalUrl: string;

  constructor(
    private readonly operations: OperationTable,
    private readonly req: Request,
    readonly operation: OperationRecord | undefined,
    readonly status: number,
    readonly inService: boolean,
    readonly wrapped: boolean,
  ) {
    this.originalUrl = req.originalUrl;
  }

  get dtoType(): string {
    return dtoTypeOf(this.operations, this.operation, this.status);
  }

  get list(): boolean {
    return responseFor(this.operation, this.status)?.list === true;
  }

  get publicPath(): string {
    return publicPath(this.req);
  }

  keyword(name: string): string | undefined {
    return keywordText(this.req.query as Record<string, unknown>, name);
  }
}
