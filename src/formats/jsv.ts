/**
 * JSV (ServiceStack.Text's TypeSerializer, `application/jsv`), written and read as a real ServiceStack 4.5.14 host did:
 * `{Message:hello,CompanyName:Acme}`. Objects `{Key:Value,...}` with null members left out, lists `[a,b]`, booleans
 * `True`/`False`, numbers as written, `/Date(ms[±hhmm])/` dates as `2025-01-01` at midnight UTC (else
 * `2025-01-01T10:00:00Z`, `…+00:00` for a Local DateTime). A string is written bare unless it holds one of `" : , { } [
 * ]` or a line break; then it is
 * quoted, its `"` doubled (`"a,b""c"`).
 */
import { Keywords } from '../contract/keywords.ts';
import { appError } from '../errors/app-error.ts';
import { dtoDateWallClock } from '../scalars/dates.ts';
import { applyJsConfig, jsvJsConfig, parseJsConfig, type JsConfig } from './jsconfig.ts';
import { framedList } from './framed-list.ts';
import type { FormatEntry, ReadContext, WriteContext } from './registry.ts';

export const JSV_MEDIA_TYPE = 'application/jsv';

const ESCAPE_CHARS = /[":,{}[\]\r\n]/;

function jsvString(value: string): string {
  return value !== '' && ESCAPE_CHARS.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * DateTimeSerializer.ToShortestXsdDateTimeString, as 4.5.14 wrote it: `2025-01-01` at midnight (in the date's own
 * offset) whatever the kind, else the time with the kind's zone (`Z`, `±hh:mm` or none) and 7 fraction digits when
 * there are milliseconds.
 */
function jsvDate({ wallClock, zone }: { wallClock: string; zone: string }): string {
  if (wallClock.endsWith('T00:00:00.000')) return wallClock.slice(0, 10);
  return wallClock.endsWith('.000') ? wallClock.slice(0, -4) + zone : `${wallClock}0000${zone}`;
}

function jsvNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`jsv: ${value} is not a number`);
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** One value as JSV text. */
export function toJsv(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return jsvNumber(value);
  // A `/Date(ms)/` text no Date holds is written as the text it is (the binder refuses one in a request).
  if (typeof value === 'string') {
    const date = dtoDateWallClock(value);
    return date ? jsvDate(date) : jsvString(value);
  }
  if (Array.isArray(value)) return `[${value.map(toJsv).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    return `{${members.map(([k, v]) => `${jsvString(k)}:${toJsv(v)}`).join(',')}}`;
  }
  throw new Error(`jsv: cannot write a ${typeof value}`);
}

/** A JSV value read back: a map of members, a list, or the text of a scalar (the binder reads scalars as text). */
export type JsvValue = string | JsvValue[] | { [key: string]: JsvValue };

export class JsvSyntaxError extends Error {
  override readonly name = 'JsvSyntaxError';
}

/** Reads JSV text (a request body of `/jsv/reply/{Op}`); a malformed document throws JsvSyntaxError. */
export function parseJsv(text: string): JsvValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new JsvSyntaxError(`${what} at character ${at + 1}`);
  };

  function scalar(stops: string): string {
    if (text[at] === '"') {
      at++;
      let out = '';
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) fail('unterminated quoted string');
        out += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') return out;
        out += '"';
        at++;
      }
    }
    const start = at;
    while (at < text.length && !stops.includes(text[at]!)) at++;
    return text.slice(start, at);
  }

  function value(stops: string): JsvValue {
    if (text[at] === '{') return map();
    if (text[at] === '[') return list();
    return scalar(stops);
  }

  function map(): { [key: string]: JsvValue } {
    const out: { [key: string]: JsvValue } = Object.create(null) as { [key: string]: JsvValue };
    at++; // {
    if (text[at] === '}') {
      at++;
      return out;
    }
    for (;;) {
      const key = scalar(':');
      if (text[at] !== ':') fail('expected :');
      at++;
      const quoted = text[at] === '"';
      const member = value(',}');
      // `{Message:}` is null in 4.5, `{Message:""}` is "" (both seen on a 4.5.14 host).
      if (member !== '' || quoted) out[key] = member;
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return out;
      }
      fail('expected , or }');
    }
  }

  function list(): JsvValue[] {
    const out: JsvValue[] = [];
    at++; // [
    if (text[at] === ']') {
      at++;
      return out;
    }
    for (;;) {
      out.push(value(',]'));
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return out;
      }
      fail('expected , or ]');
    }
  }

  const trimmed = text.trim();
  text = trimmed;
  if (text === '') return Object.create(null) as { [key: string]: JsvValue };
  const result = value('');
  if (at !== text.length) fail('unexpected text after the value');
  return result;
}

function unreadable(ctx: ReadContext, reason: string): Error {
  return appError('BodyUnreadableAs', { mediaType: JSV_MEDIA_TYPE, dto: ctx.operation.requestDto, reason });
}

/**
 * A request body as JSV; white space alone is refused, as 4.5 refused it ("Type definitions should start with a '{'").
 */
function readJsvBody(body: string, ctx: ReadContext): JsvValue {
  try {
    if (body.trim() === '') throw new JsvSyntaxError('the body is only white space');
    return parseJsv(body);
  } catch (error) {
    throw unreadable(ctx, (error as Error).message);
  }
}

function writeJsvDto(dto: unknown, ctx: WriteContext): string {
  // 4.5 applied ?jsconfig= names and Unix dates to the service's own JSV answer too.
  const jsconfig = serviceJsvJsConfig(ctx);
  return toJsv(jsconfig ? applyJsConfig(dto, jsconfig) : dto);
}

/**
 * The `jsv` entry of the format registry: `.jsv`, `?format=jsv`, `Accept: application/jsv`, `/jsv/reply/{Op}` bodies.
 */
export const jsvFormat: FormatEntry = {
  format: 'jsv',
  mediaType: JSV_MEDIA_TYPE,
  contentType: JSV_MEDIA_TYPE,
  preferred: true,
  predefinedRoutes: true,
  writeDto: writeJsvDto,
  // A JSV list is its items' texts in `[`, `,`, `]` (toJsv).
  listWriter: (_first, ctx) => framedList({ open: '[', separator: ',', close: ']' }, (dto) => writeJsvDto(dto, ctx)),
  read: (body, ctx) => {
    const value = readJsvBody(body, ctx);
    if (typeof value !== 'object' || Array.isArray(value)) throw unreadable(ctx, 'the body must be a JSV object');
    return value;
  },
  // `/jsv/reply/{Op}[]` bodies, `[{Message:a},{Message:b}]` as JsvServiceClient's SendAll writes them.
  readList: (body, ctx) => {
    const value = readJsvBody(body, ctx);
    if (!Array.isArray(value)) throw unreadable(ctx, 'the body must be a JSV list of requests');
    return value;
  },
};

/** The `?jsconfig=` settings 4.5 applied to a service's own JSV (and CSV's JSV cells); none for other answers. */
export function serviceJsvJsConfig(ctx: WriteContext): JsConfig | undefined {
  return ctx.inService ? jsvJsConfig(parseJsConfig(ctx.keyword(Keywords.jsconfig))) : undefined;
}
