/**
 * `?jsconfig=` (ServiceStack 4.5's AllowJsConfig): per-request serializer settings for a service's JSON and JSV
 * answer, `Key:Value` pairs separated by `,`, every value of a repeated `jsconfig` applied. Honoured as 4.5.14 did:
 * `EmitCamelCaseNames:true` (`companyName`), `EmitLowercaseUnderscoreNames:true` (`company_name`) and
 * `DateHandler:ISO8601|ISO8601DateOnly|UnixTime|UnixTimeMs`. The host applied them to the service's own answer only
 * (JSON, JSV and CSV's JSV cells): not to JSONP, not to XML, not to errors raised before the service. Unknown keys and
 * values are ignored.
 */
import { dtoDateWallClock } from '../scalars/dates.ts';

export type DateHandler = 'ISO8601' | 'ISO8601DateOnly' | 'UnixTime' | 'UnixTimeMs';

export interface JsConfig {
  names?: 'camelCase' | 'lowercase_underscore';
  dateHandler?: DateHandler;
}

export const DATE_HANDLERS: readonly DateHandler[] = ['ISO8601', 'ISO8601DateOnly', 'UnixTime', 'UnixTimeMs'];

/** 4.5.14's names and abbreviations of the DateHandler values honoured; `TimestampOffset` is the default form. */
const DATE_HANDLER_NAMES: Record<string, DateHandler | 'TimestampOffset'> = {
  timestampoffset: 'TimestampOffset',
  to: 'TimestampOffset',
  iso8601: 'ISO8601',
  iso8601dateonly: 'ISO8601DateOnly',
  iso8601do: 'ISO8601DateOnly',
  unixtime: 'UnixTime',
  ut: 'UnixTime',
  unixtimems: 'UnixTimeMs',
  utm: 'UnixTimeMs',
};

/**
 * The settings of `?jsconfig=`'s text (a repeated key's values joined by `,` in the query's order, as .NET's
 * QueryString gave them), read as ServiceStack.Text 4.5.14's JsConfig.CreateScope read it: `Key:Value` items,
 * the key (or its abbreviation: `eccn`, `elun`, `dh`) in any case but not trimmed, a later item overriding an earlier
 * one; a flag is true unless its value is `false` or `0` (no value is true); camelCase names win over
 * lowercase_underscore when both are on.
 */
export function parseJsConfig(text: string | undefined): JsConfig | undefined {
  if (!text) return undefined;
  let camelCase = false;
  let lowercaseUnderscore = false;
  let dateHandler: DateHandler | 'TimestampOffset' | undefined;
  for (const item of text.split(',')) {
    const colon = item.indexOf(':');
    const key = (colon === -1 ? item : item.slice(0, colon)).toLowerCase();
    const value = colon === -1 ? undefined : item.slice(colon + 1).toLowerCase();
    const flag = value === undefined || (value !== 'false' && value !== '0');
    if (key === 'emitcamelcasenames' || key === 'eccn') camelCase = flag;
    else if (key === 'emitlowercaseunderscorenames' || key === 'elun') lowercaseUnderscore = flag;
    else if ((key === 'datehandler' || key === 'dh') && value !== undefined && Object.hasOwn(DATE_HANDLER_NAMES, value))
      dateHandler = DATE_HANDLER_NAMES[value];
  }
  const config: JsConfig = {};
  if (camelCase) config.names = 'camelCase';
  else if (lowercaseUnderscore) config.names = 'lowercase_underscore';
  if (dateHandler && dateHandler !== 'TimestampOffset') config.dateHandler = dateHandler;
  return config.names || config.dateHandler ? config : undefined;
}

function renameKey(name: string, names: JsConfig['names']): string {
  if (names === 'camelCase') return name.charAt(0).toLowerCase() + name.slice(1);
  if (names === 'lowercase_underscore') return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return name;
}

/**
 * A `/Date(…)/` DateTime as 4.5 wrote it under each DateHandler (ISO8601: 7 fraction digits and the kind's zone, in the
 * offset the date was sent with; ISO8601DateOnly: the date there).
 */
function writeDate(text: string, handler: DateHandler): string | number | undefined {
  const shown = dtoDateWallClock(text);
  if (!shown) return undefined;
  switch (handler) {
    case 'ISO8601':
      return `${shown.wallClock}0000${shown.zone}`;
    case 'ISO8601DateOnly':
      return shown.wallClock.slice(0, 10);
    case 'UnixTime':
      return Math.floor(shown.ms / 1000);
    case 'UnixTimeMs':
      return shown.ms;
  }
}

/**
 * The part of a config 4.5.14's TypeSerializer honoured in JSV and in CSV's JSV cells: the names and the Unix date
 * forms (its ISO 8601 forms are JSV's own date form already, so they changed nothing there).
 */
export function jsvJsConfig(config: JsConfig | undefined): JsConfig | undefined {
  if (!config) return undefined;
  const dateHandler =
    config.dateHandler === 'UnixTime' || config.dateHandler === 'UnixTimeMs' ? config.dateHandler : undefined;
  if (!config.names && !dateHandler) return undefined;
  return { ...(config.names && { names: config.names }), ...(dateHandler && { dateHandler }) };
}

/** The DTO with the config's names and date form (a new object; the DTO is left as it was). */
export function applyJsConfig(dto: unknown, config: JsConfig): unknown {
  if (Array.isArray(dto)) return dto.map((item) => applyJsConfig(item, config));
  const date = typeof dto === 'string' && config.dateHandler ? writeDate(dto, config.dateHandler) : undefined;
  if (date !== undefined) return date;
  if (typeof dto !== 'object' || dto === null) return dto;
  return Object.fromEntries(
    Object.entries(dto).map(([key, value]) => [renameKey(key, config.names), applyJsConfig(value, config)]),
  );
}
