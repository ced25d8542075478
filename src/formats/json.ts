/**
 * JSON as ServiceStack.Text wrote it: nulls omitted, `/Date(...)/` written as `\/Date(...)\/` (the escaped slash is
 * how WCF-era clients recognise a date; JSON parsers read both forms the same). The default format.
 */
import { Keywords } from '../contract/keywords.ts';
import { applyJsConfig, parseJsConfig } from './jsconfig.ts';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { appError } from '../errors/app-error.ts';
import { framedList } from './framed-list.ts';
import type { FormatEntry, ReadContext, WriteContext } from './registry.ts';

const LEGACY_DATE_STRING = /"\/Date\((-?\d+(?:[+-]\d{4})?)\)\/"/g;

function omitNulls(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}

function containsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsNull);
  for (const key in value) if (containsNull((value as Record<string, unknown>)[key])) return true;
  return false;
}

export function toLegacyJson(dto: unknown): string {
  // A replacer function takes JSON.stringify off its fast path: used only when there is a null to leave out. A null
  // value is written `null`, so a text without one (most answers, a report's too) needs no walk of the DTO.
  let text = JSON.stringify(dto);
  if (text.includes('null') && containsNull(dto)) text = JSON.stringify(dto, omitNulls);
  return text.includes('/Date(') ? text.replace(LEGACY_DATE_STRING, '"\\/Date($1)\\/"') : text;
}

/**
 * A JSON request body as 4.5 read it: strict JSON plus a trailing comma (jsonc-parser); a body 4.5 half-read
 * (truncated) is a 400.
 */
function parseLegacyJson(body: string, fail: (reason: string) => never): unknown {
  try {
    return JSON.parse(body); // strict JSON, any depth
  } catch {
    // Not strict JSON: read it again allowing what 4.5 allowed (a trailing comma), naming the first error otherwise.
    const errors: ParseError[] = [];
    let value: unknown;
    try {
      value = parse(body, errors, { allowTrailingComma: true, disallowComments: true, allowEmptyContent: false });
    } catch {
      return fail('the body is nested too deeply');
    }
    if (errors.length) return fail(`${printParseErrorCode(errors[0]!.error)} at character ${errors[0]!.offset + 1}`);
    return value;
  }
}

function bodyFailure(ctx: ReadContext): (reason: string) => never {
  return (reason) => {
    throw appError('BodyUnreadable', { dto: ctx.operation.requestDto, reason });
  };
}

/** A JSON request body: one object. */
export function readLegacyJson(body: string, ctx: ReadContext): Record<string, unknown> {
  const fail = bodyFailure(ctx);
  const value = parseLegacyJson(body, fail);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A batch's JSON body: an array (its items are the binder's to check), as JsonServiceClient's SendAll writes it. */
export function readLegacyJsonList(body: string, ctx: ReadContext): unknown[] {
  const fail = bodyFailure(ctx);
  const value = parseLegacyJson(body, fail);
  return Array.isArray(value) ? value : fail('the body must be a JSON array of requests');
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

function writeJson(dto: unknown, ctx: WriteContext): string {
  // ?jsconfig= shapes the service's own JSON answer only (not JSONP, not errors raised before the service).
  const jsconfig = ctx.inService && !ctx.wrapped ? parseJsConfig(ctx.keyword(Keywords.jsconfig)) : undefined;
  return toLegacyJson(jsconfig ? applyJsConfig(dto, jsconfig) : dto);
}

export const jsonFormat: FormatEntry = {
  format: 'json',
  mediaType: 'application/json',
  contentType: JSON_CONTENT_TYPE,
  preferred: true,
  predefinedRoutes: true,
  writeDto: writeJson,
  // A JSON array is its items' texts in `[`, `,`, `]` (jsconfig shapes each item as it shapes the list).
  listWriter: (_first, ctx) => framedList({ open: '[', separator: ',', close: ']' }, (dto) => writeJson(dto, ctx)),
  read: readLegacyJson,
  readList: readLegacyJsonList,
};
