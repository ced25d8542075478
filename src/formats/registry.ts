/**
 * The format registry, as ServiceStack's ContentTypes: one entry per wire format, `{ format, mediaType,
 * contentType, writeDto | writeResult, read, wraps }`. Everything format-specific lives in an entry; the
 * negotiation (src/http/negotiate.ts) and the one response writer (src/http/response-writer.ts) only consult the
 * registry and the operation record, so neither grows a special case per format.
 *
 * HOW TO ADD A FORMAT (e.g. CSV, JSV or an HTML snapshot for every DTO):
 *   1. Write an entry in src/formats/<format>.ts: `format` is the name `?format=`, the `.ext` path suffix and a
 *      `/{format}/reply/{Op}` prefix use; `mediaType` is what Accept and openapi/ name. Give it
 *      `writeDto(dto, ctx)` to write any response DTO (errors included: `ctx.status`, `ctx.dtoType` say which), and/or
 *      `writeResult(result, ctx)` to render a RichResult whole (the report's page and downloads); `read(body, ctx)`
 *      to read the bodies of its `/{format}/reply/{Op}` routes (src/http/request-body.ts hands them to the binder),
 *      and `readList(body, ctx)` for a batch of them (`/{format}/reply/{Op}[]`; `writeDto` then gets the list,
 *      `ctx.list`); an entry may only read or only write.
 *   2. Add it to the list in src/formats/built-in.ts (the app registers it; `npm run compare`'s battery replays it);
 *      list order is the Accept preference order.
 *   3. Document the media type on the operations that answer it in openapi/ (negotiation offers an operation only
 *      the media types its `200` response documents; a request for another falls through to the next rule).
 * A wrapper (JSONP) names the format it wraps (`wraps`) and the query keyword that asks for it; it is never
 * negotiated on its own. An entry with `predefinedRoutes` also answers ServiceStack's pre-defined routes under its
 * name, `/{format}/reply/{Op}`, as the contract's `/json/reply/{Op}` operations (the prefix chooses the format).
 */
import type { OperationRecord } from '../contract/operations.ts';
import type { RichResult } from '../contract/service-result.ts';

export interface WriteContext {
  /** The contract operation answered, when the request resolved to one. */
  operation?: OperationRecord;
  status: number;
  /** The contract's DTO type of this response (`EchoResponse`, `ErrorResponse`, ...). */
  dtoType: string;
  /** The response is a list of `dtoType` (a batch's answer, `/{format}/reply/{Op}[]`). */
  list?: boolean;
  /** The URL as the client sent it (to link to the same resource in another format). */
  originalUrl: string;
  /**
   * The path of the service's public base ('' at the root, else BASE_PATH or PUBLIC_BASE_URL's path): the prefix of
   * root-relative links.
   */
  publicPath: string;
  /** True once the operation's service ran: the answer is the service's own (not an error raised before it). */
  inService: boolean;
  /** True when a wrapper (JSONP) will wrap this output. */
  wrapped: boolean;
  /**
   * A host keyword's text from the query (`jsconfig`, ...), its name matched case-insensitively, a repeated key's
   * values joined by `,` (as .NET's QueryString gave them).
   */
  keyword(name: string): string | undefined;
}

export interface Written {
  body: Buffer | string;
  /**
   * In place of the entry's Content-Type (CSV's DTO form is `text/csv`, its report download `text/csv; charset=utf-8`).
   */
  contentType?: string;
  /** Download file name: sent as `Content-Disposition: attachment`. */
  attachment?: string;
  headers?: Record<string, string>;
}

/**
 * A format's list of DTOs (a batch's answer) written from its items' texts, each written once: the list can be measured
 * as it grows (MAX_BATCH_ANSWER_BYTES) and then written from the same texts.
 */
export interface ListWriter {
  /** One item's text, as it stands in the list. */
  item(dto: unknown): string;
  /** The bytes of the list of `count` items whose texts take `itemBytes` in all. */
  bytes(count: number, itemBytes: number): number;
  /** The list of the items whose texts these are, byte for byte as `writeDto` writes that list. */
  write(texts: readonly string[]): string | Buffer | Written;
}

export interface ReadContext {
  operation: OperationRecord;
}

export interface FormatEntry {
  /** Name used by `?format=`, the path suffix and the predefined route prefix (`json`). */
  format: string;
  /** The media type Accept and openapi/ name (`application/json`). */
  mediaType: string;
  /** The Content-Type header sent (`application/json; charset=utf-8`). */
  contentType: string;
  /** Writes a response DTO (results and errors alike); a Written when the answer needs headers of its own. */
  writeDto?(dto: unknown, ctx: WriteContext): string | Buffer | Written;
  /**
   * Its ListWriter for a non-empty list whose first item is `first` (`ctx.list`): a format whose list is a frame around
   * its items' texts (src/formats/framed-list.ts). A format without one (HTML's page is one document around the whole
   * list) has its lists measured by writing them.
   */
  listWriter?(first: unknown, ctx: WriteContext): ListWriter;
  /** Renders a RichResult whole; undefined when this format has no form of that result. */
  writeResult?(result: RichResult, ctx: WriteContext): Written | undefined | Promise<Written | undefined>;
  /** Reads a request body of this media type into the request DTO's properties. */
  read?(body: string, ctx: ReadContext): Record<string, unknown>;
  /** Reads a batch's body (`/{format}/reply/{Op}[]`): its items in order, each for the binder as `read` gives one. */
  readList?(body: string, ctx: ReadContext): unknown[];
  /** Its output links to the request's own URL (`ctx.originalUrl`): an answer's entity tag then covers that URL. */
  linksToRequest?: boolean;
  /** Answers the pre-defined routes `/{format}/reply/{Op}` of the contract's `/json/reply/{Op}` operations. */
  predefinedRoutes?: boolean;
  /**
   * One of ServiceStack's PreferredContentTypes (JSON, HTML, XML, JSV): Accept naming it wins over `*\/*` and over
   * the other formats whatever their order and q-values; the others (CSV, XLSX) only when Accept names neither a
   * preferred format nor `*\/*` (src/http/negotiate.ts).
   */
  preferred?: boolean;
  /** A wrapper around another format's output (JSONP around JSON), asked for by a query keyword. */
  wraps?: {
    format: string;
    keyword: string;
    /** The body with text before and after it, the same whatever the body (a wrapped list is measured so). */
    wrap(body: string, keywordValue: string): string;
    accepts(keywordValue: string): boolean;
  };
}

export interface FormatRegistry {
  readonly entries: readonly FormatEntry[];
  get(format: string): FormatEntry | undefined;
  /** The format a path suffix names (case-sensitive, as ServiceStack looked it up); wrappers have none. */
  byExtension(extension: string): FormatEntry | undefined;
  /** The negotiable formats among `mediaTypes`, in that order (wrappers excluded). */
  offered(mediaTypes: readonly string[]): FormatEntry[];
  /** Every negotiable format that writes DTOs, in registry order: what a request outside the contract can get. */
  readonly dtoFormats: readonly FormatEntry[];
  readonly wrappers: readonly FormatEntry[];
  /** The first entry: the default. */
  readonly fallback: FormatEntry;
}

export function createFormatRegistry(entries: readonly FormatEntry[]): FormatRegistry {
  const negotiable = entries.filter((e) => !e.wraps);
  const byFormat = new Map(entries.map((e) => [e.format, e]));
  const byExtension = new Map(negotiable.map((e) => [e.format, e]));
  const byMediaType = new Map(negotiable.map((e) => [e.mediaType, e]));
  if (byFormat.size !== entries.length) throw new Error('formats: two entries share a format name');
  const fallback = negotiable[0];
  if (!fallback?.writeDto) throw new Error('formats: the first entry (the default) must write DTOs');
  return {
    entries,
    get: (format) => byFormat.get(format),
    byExtension: (extension) => byExtension.get(extension),
    offered: (mediaTypes) => mediaTypes.map((m) => byMediaType.get(m)).filter((e): e is FormatEntry => e !== undefined),
    dtoFormats: negotiable.filter((e) => e.writeDto),
    wrappers: entries.filter((e) => e.wraps),
    fallback,
  };
}
