/**
 * `?jsconfig=` (ServiceStack 4.5's AllowJsConfig): per-request serializer settings for a service's JSON and JSV
 * answer, `Key:Value` pairs separated by `,`, keys in any case. Honoured as a real 4.5.14 host honoured them:
 * `EmitCamelCaseNames:true` (`companyName`), `EmitLowercaseUnderscoreNames:true` (`company_name`) and
 * `DateHandler:ISO8601|ISO8601DateOnly|UnixTime|UnixTimeMs`. The host applied them to the service's own answer only:
 * not to JSONP, not to XML, not to errors raised before the service. Unknown keys and values are ignored.
 */
import { ISO_ZONE_OF_KIND, legacyInstantKind, parseLegacyInstant, type LegacyDateKind } from '../scalars/dates.ts';

export type DateHandler = 'ISO8601' | 'ISO8601DateOnly' | 'UnixTime' | 'UnixTimeMs';

export interface JsConfig {
  names?: 'camelCase' | 'lowercase_underscore';
  dateHandler?: DateHandler;
}

export const DATE_HANDLERS: readonly DateHandler[] = ['ISO8601', 'ISO8601DateOnly', 'UnixTime', 'UnixTimeMs'];
const WCF_DATE_STRING = /^\/Date\(-?\d+(?:[+-]\d{4})?\)\/$/;

function isTrue(value: string): boolean {
  return value.trim().toLowerCase() === 'true' || value.trim() === '1';
}

export function parseJsConfig(text: string | undefined): JsConfig | undefined {
  if (!text) return undefined;
  const config: JsConfig = {};
  for (const pair of text.split(',')) {
    const colon = pair.indexOf(':');
    const key = (colon === -1 ? pair : pair.slice(0, colon)).trim().toLowerCase();
    const value = colon === -1 ? 'true' : pair.slice(colon + 1);
    if (key === 'emitcamelcasenames' && isTrue(value)) config.names = 'camelCase';
    else if (key === 'emitlowercaseunderscorenames' && isTrue(value)) config.names = 'lowercase_underscore';
    else if (key === 'datehandler') {
      const handler = DATE_HANDLERS.find((h) => h.toLowerCase() === value.trim().toLowerCase());
      if (handler) config.dateHandler = handler;
    }
  }
  return config.names || config.dateHandler ? config : undefined;
}

function renameKey(name: string, names: JsConfig['names']): string {
  if (names === 'camelCase') return name.charAt(0).toLowerCase() + name.slice(1);
  if (names === 'lowercase_underscore') return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return name;
}

/** A DateTime of `kind` as 4.5 wrote it under each DateHandler (ISO8601: 7 fraction digits and the kind's zone). */
function writeDate(ms: number, kind: LegacyDateKind, handler: DateHandler): string | number {
  switch (handler) {
    case 'ISO8601':
      return new Date(ms)
        .toISOString()
        .replace(/\.(\d{3})Z$/, (_all, millis: string) => `.${millis}0000${ISO_ZONE_OF_KIND[kind]}`);
    case 'ISO8601DateOnly':
      return new Date(ms).toISOString().slice(0, 10);
    case 'UnixTime':
      return Math.floor(ms / 1000);
    case 'UnixTimeMs':
      return ms;
  }
}

/** The DTO with the config's names and date form (a new object; the DTO is left as it was). */
export function applyJsConfig(dto: unknown, config: JsConfig): unknown {
  if (Array.isArray(dto)) return dto.map((item) => applyJsConfig(item, config));
  const ms =
    typeof dto === 'string' && config.dateHandler && WCF_DATE_STRING.test(dto) ? parseLegacyInstant(dto) : undefined;
  if (ms !== undefined) return writeDate(ms, legacyInstantKind(dto as string)!, config.dateHandler!);
  if (typeof dto !== 'object' || dto === null) return dto;
  return Object.fromEntries(
    Object.entries(dto).map(([key, value]) => [renameKey(key, config.names), applyJsConfig(value, config)]),
  );
}
