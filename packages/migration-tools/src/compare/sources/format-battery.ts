/**
 * The battery's requests generated from the format registry (src/formats/built-in.ts, the list the service itself
 * registers), so a format added there is replayed without a line here:
 * - every writer: each GET operation asked for each format by `?format=`, Accept, a path suffix and (pre-defined
 *   routes) `/{format}/reply/{Op}`; each wrapper (JSONP) around each format; `?jsconfig=` in every form 4.5 read;
 *   string fields holding a line break (LF, CR, CRLF, and a formula after a LF: CSV's row split) in each format;
 * - every format a ServiceStack client writes bodies in (the pre-defined route formats but HTML, which no client
 *   posts): POST `/{format}/reply/{Op}` and `/{format}/oneway/{Op}` with the request DTO written by that format's own
 *   writer, as JsonServiceClient, XmlServiceClient, JsvServiceClient and CsvServiceClient send it; an empty body
 *   (`Post(url, null)`); a batch `/{format}/reply/{Op}[]` (`SendAll`, `SendAllOneWay`) in each format whose writer
 *   writes a list as a list; and a line break in each string field.
 */
import { REPORT_ASSETS } from '../../../../../src/tooling-exports.ts';
import type { ContractRequest, OperationRequests } from '../../../../../src/tooling-exports.ts';
import type { FieldSpec } from '../../../../../src/tooling-exports.ts';
import { Keywords } from '../../../../../src/tooling-exports.ts';
import { builtInFormats } from '../../../../../src/tooling-exports.ts';
import { DATE_HANDLERS } from '../../../../../src/tooling-exports.ts';
import {
  createFormatRegistry,
  type FormatEntry,
  type FormatRegistry,
  type WriteContext,
} from '../../../../../src/tooling-exports.ts';
import { comparerFor } from '../comparers/registry.ts';

export type AddRequest = (rule: string, request: ContractRequest) => void;

/** Values of a text field that a CSV writer must quote and a CSV reader must not split on. */
export const LINE_BREAKS: readonly [string, string][] = [
  ['lf', 'line\nbreak'],
  ['cr', 'line\rbreak'],
  ['crlf', 'line\r\nbreak'],
  ['formula-after-lf', "line\n=cmd|' /C calc'!A0"],
];

/** Every `?jsconfig=` form a 4.5 host read (names, each date handler, both at once) and one it ignored. */
export const JSCONFIG_FORMS: readonly string[] = [
  'EmitCamelCaseNames:true',
  'EmitLowercaseUnderscoreNames:true',
  ...DATE_HANDLERS.map((h) => `DateHandler:${h}`),
  'emitcamelcasenames:true,datehandler:iso8601',
  'NoSuchSetting:true',
];

export function formatRegistry(): FormatRegistry {
  return createFormatRegistry(builtInFormats(REPORT_ASSETS));
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

function withSuffix(url: string, suffix: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url + suffix : url.slice(0, at) + suffix + url.slice(at);
}

const q = (name: string, value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;

/**
 * The pre-defined route of `format` for an operation of `/json/reply/{Op}` (`/jsv/reply/EchoRequest`, `/csv/oneway/…`).
 */
function predefinedUrl(url: string, format: string, kind: 'reply' | 'oneway' = 'reply'): string {
  return url.replace(/^\/json\/reply\//i, `/${format}/${kind}/`);
}

/** The request DTO (or a list of them) as the format's writer writes it; undefined when it cannot. */
function written(entry: FormatEntry, dto: unknown, dtoType: string): string | undefined {
  const ctx: WriteContext = {
    status: 200,
    dtoType,
    originalUrl: '/',
    publicPath: '',
    inService: false,
    wrapped: false,
    keyword: () => undefined,
  };
  try {
    const out = entry.writeDto!(dto, ctx);
    const body = typeof out === 'string' || Buffer.isBuffer(out) ? out : out.body;
    return Buffer.isBuffer(body) ? body.toString('utf8') : body;
  } catch {
    return undefined;
  }
}

/**
 * Whether the format's answer reads back as a list (JSON's and JSV's do; XML's writer has no list type, CSV writes one
 * DTO).
 */
function writesList(entry: FormatEntry, body: string | undefined): body is string {
  if (body === undefined) return false;
  try {
    return Array.isArray(comparerFor(entry.mediaType, false).parse(body).tree);
  } catch {
    return false;
  }
}

function stringFields(fields: Iterable<FieldSpec> | undefined): FieldSpec[] {
  return [...(fields ?? [])].filter(
    (f) => f.type.kind === 'string' && !Object.values(Keywords).includes(f.name.toLowerCase() as never),
  );
}

/** GET: every writer and wrapper, jsconfig, line breaks in each format. */
export function formatGetRequests(registry: FormatRegistry, op: OperationRequests, add: AddRequest): void {
  const sample = op.sample!;
  const id = op.operationId;
  const writers = registry.entries.filter((e) => !e.wraps && (e.writeDto || e.writeResult));
  const get = (rule: string, url: string, headers?: Record<string, string>) =>
    add(`${rule.split(':')[0]}:${id}:${rule.split(':').slice(1).join(':')}`, { method: 'GET', url, headers });
  for (const entry of writers) {
    get(`format:format=${entry.format}`, withQuery(sample.url, `format=${entry.format}`));
    get(`format:accept=${entry.mediaType}`, sample.url, { Accept: entry.mediaType });
    if (!op.record.predefined) get(`format:suffix.${entry.format}`, withSuffix(sample.url, `.${entry.format}`));
    else if (entry.predefinedRoutes) get(`format:/${entry.format}/reply`, predefinedUrl(sample.url, entry.format));
  }
  get('format:format=nosuch', withQuery(sample.url, 'format=nosuch'));
  get('format:accept=*/*', sample.url, { Accept: '*/*' });
  for (const wrapper of registry.wrappers) {
    const { keyword } = wrapper.wraps!;
    get(`${wrapper.format}:${keyword}`, withQuery(sample.url, `${keyword}=cb`));
    get(
      `${wrapper.format}:${keyword}-sanitised`,
      withQuery(sample.url, `${keyword}=${encodeURIComponent('x.y<z>();')}`),
    );
    for (const entry of registry.dtoFormats)
      if (entry.format !== wrapper.wraps!.format)
        get(
          `${wrapper.format}:${keyword}+format=${entry.format}`,
          withQuery(sample.url, `${keyword}=cb&format=${entry.format}`),
        );
  }
  // ?jsconfig=: every form in the formats 4.5 applied it to (those ServiceStack.Text writes: JSON, JSV), one in every
  // other.
  for (const entry of registry.dtoFormats) {
    const forms = ['json', 'jsv'].includes(entry.format) ? JSCONFIG_FORMS : JSCONFIG_FORMS.slice(-2, -1);
    for (const form of forms)
      get(
        `jsconfig:${form}:format=${entry.format}`,
        withQuery(sample.url, `${q(Keywords.jsconfig, form)}&format=${entry.format}`),
      );
  }
  for (const field of stringFields(op.record.binding.query.values())) {
    for (const [name, value] of LINE_BREAKS) {
      for (const entry of registry.dtoFormats)
        get(
          `line-break:${field.name}=${name}:format=${entry.format}`,
          withQuery(sample.url, `${q(field.name, value)}&format=${entry.format}`),
        );
    }
  }
}

/** POST to a pre-defined route: the body in every format a client writes, one-way, empty, batched, with line breaks. */
export function formatBodyRequests(registry: FormatRegistry, op: OperationRequests, add: AddRequest): void {
  const sample = op.sample!;
  const id = op.operationId;
  const dto = JSON.parse(sample.body ?? '{}') as Record<string, unknown>;
  const dtoType = op.record.requestDto;
  const bodyFormats = registry.dtoFormats.filter((e) => e.predefinedRoutes && e.mediaType !== 'text/html');
  for (const entry of bodyFormats) {
    const post = (rule: string, url: string, body: string) =>
      add(`body:${id}:${entry.format}${rule}`, {
        method: 'POST',
        url,
        headers: { 'Content-Type': entry.mediaType },
        body,
      });
    const one = written(entry, dto, dtoType);
    if (one !== undefined) {
      post('', predefinedUrl(sample.url, entry.format), one);
      post(':oneway', predefinedUrl(sample.url, entry.format, 'oneway'), one);
    }
    post(':empty', predefinedUrl(sample.url, entry.format), '');
    const list = written(entry, [dto, dto], `${dtoType}[]`);
    if (writesList(entry, list)) {
      post(':batch', `${predefinedUrl(sample.url, entry.format)}[]`, list);
      post(':batch-oneway', `${predefinedUrl(sample.url, entry.format, 'oneway')}[]`, list);
    }
    for (const field of stringFields(op.record.binding.body?.values())) {
      const name = Object.keys(dto).find((k) => k.toLowerCase() === field.name.toLowerCase()) ?? field.name;
      for (const [form, value] of LINE_BREAKS) {
        const body = written(entry, { ...dto, [name]: value }, dtoType);
        if (body !== undefined) post(`:line-break:${name}=${form}`, predefinedUrl(sample.url, entry.format), body);
      }
    }
  }
}
