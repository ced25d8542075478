/**
 * The typed client of the Reporting Service: openapi-fetch over the openapi-typescript `paths` of openapi/, one
 * method per operation of the contract. Nothing here restates a DTO: inputs and results are the generated types,
 * with the contract's legacy date properties (generated/client-contract.ts) as `Date` objects — sent as `/Date(ms)/`,
 * read back from `/Date(ms[±hhmm])/`. A response with an error status throws a `ResponseStatusError` carrying the
 * ServiceStack ResponseStatus (ErrorCode, Message, Errors) and the HTTP status.
 *
 *   const client = createReportingClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.API_KEY });
 *   const report = await client.getFlat({ CompanyId: 1, UseCustomDateRange: true, StartDate: new Date('2024-01-01'),
 * EndDate: new Date('2024-02-29') });
 */
import createClient, { type Client } from 'openapi-fetch';
import {
  legacyDateProperties,
  operationRoutes,
  type LegacyDateProperty,
  type OperationId,
} from '../../generated/client-contract.ts';
import type { components, operations, paths } from '../../generated/openapi.ts';
import { formatLegacyInstant, parseLegacyInstant } from '../scalars/dates.ts';

type Schemas = components['schemas'];
export type ResponseStatus = Schemas['ResponseStatus'];
export type ResponseError = Schemas['ResponseError'];

/** `T` with every legacy date property (at any depth) as `Date`. */
export type WithDates<T> = T extends (infer U)[]
  ? WithDates<U>[]
  : T extends object
    ? { [K in keyof T]: K extends LegacyDateProperty ? Date : WithDates<T[K]> }
    : T;

/** What a caller may send for `T`: a legacy date property takes a `Date` or any accepted legacy string form. */
export type WithDateInputs<T> = T extends (infer U)[]
  ? WithDateInputs<U>[]
  : T extends object
    ? { [K in keyof T]: K extends LegacyDateProperty ? Date | T[K] : WithDateInputs<T[K]> }
    : T;

type Op<P extends keyof paths, M extends 'get' | 'post'> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The 200 body of an operation. */
type Success<O> = O extends { responses: { 200: infer R } } ? WithDates<JsonOf<R>> : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? WithDateInputs<NonNullable<Q>> : never;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? WithDateInputs<B> : never;

/** The input of an operation by operationId: its path parameters, query and JSON body, dates as `Date` allowed. */
export type OperationInput<Id extends OperationId & keyof operations> = {
  path?: operations[Id] extends { parameters: { path?: infer P } } ? NonNullable<P> : never;
  query?: QueryOf<operations[Id]>;
  body?: BodyOf<operations[Id]>;
};
/** The 200 JSON body of an operation by operationId. */
export type OperationResult<Id extends OperationId & keyof operations> = Success<operations[Id]>;

const DATE_KEYS: ReadonlySet<string> = new Set(legacyDateProperties);

/** `Date` → `/Date(ms)/`, as ServiceStack writes a UTC DateTime. */
export function toLegacyDate(date: Date): string {
  return formatLegacyInstant(date.getTime());
}

/** `/Date(ms)/` or `/Date(ms±hhmm)/` → the instant it names (the offset only says how it was displayed). */
export function parseLegacyDate(text: string): Date | undefined {
  const ms = parseLegacyInstant(text);
  return ms === undefined ? undefined : new Date(ms);
}

function mapDates(value: unknown, convert: (key: string, v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapDates(v, convert));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, DATE_KEYS.has(k) ? convert(k, v) : mapDates(v, convert)]),
  );
}

const toWire = (value: unknown) => mapDates(value, (_k, v) => (v instanceof Date ? toLegacyDate(v) : v));
const fromWire = (value: unknown) =>
  mapDates(value, (k, v) => {
    if (typeof v !== 'string') return v;
    const date = parseLegacyDate(v);
    if (!date) throw new TypeError(`${k}: '${v}' is not a /Date(...)/ value`);
    return date;
  });

/** An error status from the service, with its ResponseStatus when the body carried one. */
export class ResponseStatusError extends Error {
  override readonly name = 'ResponseStatusError';
  readonly status: number;
  readonly ErrorCode: string | undefined;
  readonly Errors: ResponseError[];
  readonly ResponseStatus: ResponseStatus | undefined;
  /** The body as received (parsed JSON, or text when it was not JSON). */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const responseStatus = (body as { ResponseStatus?: ResponseStatus } | null)?.ResponseStatus;
    super(responseStatus?.Message ?? (typeof body === 'string' && body ? body : `HTTP ${status}`));
    this.status = status;
    this.ResponseStatus = responseStatus;
    this.ErrorCode = responseStatus?.ErrorCode;
    this.Errors = responseStatus?.Errors ?? [];
    this.body = body;
  }

  get Message(): string {
    return this.message;
  }
}

export interface ReportingClientOptions {
  /** The deployment, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Sent as `X-ApiKey` (the report operations require one). */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** RFC 3986 strict: also `( ) ! ' *`, which `/Date(...)/` values contain and a strict server may refuse raw. */
const strictEncode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Arrays as repeated keys (`Locations=1&Locations=2`), every value strictly encoded. */
function serializeQuery(query: Record<string, unknown>): string {
  return Object.entries(query)
    .flatMap(([key, value]) =>
      value === undefined || value === null
        ? []
        : (Array.isArray(value) ? value : [value]).map((v) => `${strictEncode(key)}=${strictEncode(String(v))}`),
    )
    .join('&');
}

async function unwrap<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw new ResponseStatusError(response.status, error);
  return fromWire(data) as T;
}

export function createReportingClient(options: ReportingClientOptions) {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.apiKey) headers['X-ApiKey'] = options.apiKey;
  const client: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: options.fetch,
    querySerializer: serializeQuery,
  });
  const query = <Q>(q: Q) => toWire(q) as never;
  const body = <B>(b: B) => toWire(b) as never;

  /** Any operation of the contract by its operationId (generated/client-contract.ts maps it to method and path). */
  const call = <Id extends OperationId & keyof operations>(
    id: Id,
    input: OperationInput<Id> = {},
  ): Promise<OperationResult<Id>> => {
    const { method, path } = operationRoutes[id];
    const init = {
      params: { path: input.path, query: input.query === undefined ? undefined : query(input.query) },
      body: input.body === undefined ? undefined : body(input.body),
    };
    return unwrap(client.request(method.toLowerCase() as never, path as never, init as never) as never);
  };

  return {
    /** The underlying openapi-fetch client (raw wire types). */
    raw: client,
    call,
    /** `Echo`: GET /v1/echo/{Message}. */
    echo: (Message: string) =>
      unwrap<Success<Op<'/v1/echo/{Message}', 'get'>>>(
        client.GET('/v1/echo/{Message}', { params: { path: { Message } } }),
      ),
    /** `EchoReplyGet`: GET /json/reply/EchoRequest. */
    echoReplyGet: (q: QueryOf<Op<'/json/reply/EchoRequest', 'get'>> = {}) =>
      unwrap<Success<Op<'/json/reply/EchoRequest', 'get'>>>(
        client.GET('/json/reply/EchoRequest', { params: { query: query(q) } }),
      ),
    /** `EchoReplyPost`: POST /json/reply/EchoRequest. */
    echoReplyPost: (b: BodyOf<Op<'/json/reply/EchoRequest', 'post'>> = {}) =>
      unwrap<Success<Op<'/json/reply/EchoRequest', 'post'>>>(client.POST('/json/reply/EchoRequest', { body: body(b) })),
    /** `GetFlat`: GET /v1/Reporting/ProfitAndLoss/Flat. */
    getFlat: (q: QueryOf<Op<'/v1/Reporting/ProfitAndLoss/Flat', 'get'>>) =>
      unwrap<Success<Op<'/v1/Reporting/ProfitAndLoss/Flat', 'get'>>>(
        client.GET('/v1/Reporting/ProfitAndLoss/Flat', { params: { query: query(q) } }),
      ),
    /** `GetFlatReplyGet`: GET /json/reply/GetFlatRequest. */
    getFlatReplyGet: (q: QueryOf<Op<'/json/reply/GetFlatRequest', 'get'>>) =>
      unwrap<Success<Op<'/json/reply/GetFlatRequest', 'get'>>>(
        client.GET('/json/reply/GetFlatRequest', { params: { query: query(q) } }),
      ),
    /** `GetFlatReplyPost`: POST /json/reply/GetFlatRequest. */
    getFlatReplyPost: (b: BodyOf<Op<'/json/reply/GetFlatRequest', 'post'>>) =>
      unwrap<Success<Op<'/json/reply/GetFlatRequest', 'post'>>>(
        client.POST('/json/reply/GetFlatRequest', { body: body(b) }),
      ),
  };
}

export type ReportingClient = ReturnType<typeof createReportingClient>;

/** The named method of each operationId (every operation is reachable through `call` as well). */
export const clientMethodOf = {
  Echo: 'echo',
  EchoReplyGet: 'echoReplyGet',
  EchoReplyPost: 'echoReplyPost',
  GetFlat: 'getFlat',
  GetFlatReplyGet: 'getFlatReplyGet',
  GetFlatReplyPost: 'getFlatReplyPost',
} as const satisfies Partial<Record<OperationId, Exclude<keyof ReportingClient, 'raw' | 'call'>>>;
