/**
 * JSON as ServiceStack.Text wrote it: nulls omitted, `/Date(...)/` written as `\/Date(...)\/` (the escaped slash is
 * how WCF-era clients recognise a date; JSON parsers read both forms the same). The default format.
 */
import { Keywords } from '../contract/keywords.ts';
import { applyJsConfig, parseJsConfig } from './jsconfig.ts';
import type { FormatEntry } from './registry.ts';

const LEGACY_DATE_STRING = /"\/Date\((-?\d+(?:[+-]\d{4})?)\)\/"/g;

function omitNulls(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}

export function toLegacyJson(dto: unknown): string {
  return JSON.stringify(dto, omitNulls).replace(LEGACY_DATE_STRING, '"\\/Date($1)\\/"');
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export const jsonFormat: FormatEntry = {
  format: 'json',
  mediaType: 'application/json',
  contentType: JSON_CONTENT_TYPE,
  predefinedRoutes: true,
  writeDto: (dto, ctx) => {
    // ?jsconfig= shapes the service's own JSON answer only (not JSONP, not errors raised before the service).
    const jsconfig = ctx.inService && !ctx.wrapped ? parseJsConfig(ctx.keyword(Keywords.jsconfig)) : undefined;
    return toLegacyJson(jsconfig ? applyJsConfig(dto, jsconfig) : dto);
  },
};
