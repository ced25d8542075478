/**
 * Dates, in one place and with no imports: the calendar date the service computes with ({year, month, day}, no
 * time zone), its ISO day form (`YYYY-MM-DD`, the store's and the report link's), calendar arithmetic, and the
 * legacy wire forms. ServiceStack 4.5 read `/Date(ms)/`, `/Date(ms±hhmm)/`, `\/Date(...)\/`, ISO 8601, `yyyyMMdd` and
 * what .NET's DateTime.Parse read; it wrote `/Date(ms)/` for UTC values. The report only needs the calendar date the
 * client meant (see parseLegacyCalendarDate).
 */
export interface CalendarDate {
  year: number;
  month: number; // 1-12
  day: number;
  /**
   * The .NET DateTimeKind 4.5 gave the wire value this date was read from: it is written back in that form (see
   * toLegacyDate).
   */
  kind?: LegacyDateKind;
  /**
   * The UTC offset in minutes the client sent the date with (`/Date(ms-0500)/`, `…T10:30:00+09:00`): the date is that
   * calendar day there, written back at 00:00 in that offset (see toLegacyDate). Undefined for dates without a zone.
   */
  offsetMinutes?: number;
}

/**
 * How ServiceStack 4.5.14 (on a UTC server) wrote a DateTime of each kind: `Utc` as `/Date(ms)/` (XML `…Z`), `Local`
 * as `/Date(ms+0000)/` (XML `…+00:00`), `Unspecified` as `/Date(ms-0000)/` (XML without a zone). A .NET client
 * reads `+00:00` as a local time and `Z` as UTC, so the form is kept.
 */
export type LegacyDateKind = 'Utc' | 'Local' | 'Unspecified';

const DAY_MS = 86_400_000;
/**
 * Years every date on the wire must fall in, whatever its form: 9999 is .NET's DateTime maximum; 0100 is where the
 * ISO forms start (see valid()) and the contract's LegacyDateInput pattern, so `/Date(ms)/` obeys the same range.
 */
const MIN_WIRE_YEAR = 100;
const MAX_WIRE_YEAR = 9999;
/** `/Date(ms)/` with an optional `±hhmm` display offset; the slashes may come JSON-escaped (`\/`). */
const WCF_DATE = /^\\?\/Date\((-?\d+)(?:([+-])(\d{2})(\d{2}))?\)\\?\/$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;

// ---------------------------------------------------------------- calendar arithmetic

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The date when it names a real day that Date.UTC can represent (years 0-99 cannot: they map to 19xx). */
function valid(date: CalendarDate): CalendarDate | undefined {
  const probe = new Date(Date.UTC(date.year, date.month - 1, date.day));
  return probe.getUTCFullYear() === date.year &&
    probe.getUTCMonth() === date.month - 1 &&
    probe.getUTCDate() === date.day
    ? date
    : undefined;
}

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

export function firstOfMonth(year: number, month: number): CalendarDate {
  return { year, month, day: 1 };
}

export function lastOfMonth(year: number, month: number): CalendarDate {
  return { year, month, day: daysInMonth(year, month) };
}

/** Month arithmetic: addMonths(2024, 1, -1) → {year: 2023, month: 12}. */
export function addMonths(year: number, month: number, delta: number): { year: number; month: number } {
  const index = year * 12 + (month - 1) + delta;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** `YYYY-MM`, the key of a monthly column. */
export function monthKey(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}`;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Today's calendar date in an IANA time zone. (Formatters are costly to build: one per zone is kept.) */
export function todayIn(timeZone: string, now: Date): CalendarDate {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(now);
  const value = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: value('year'), month: value('month'), day: value('day') };
}

// ---------------------------------------------------------------- ISO days (`YYYY-MM-DD`)

export function formatIsoDate({ year, month, day }: CalendarDate): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A strict `YYYY-MM-DD` that names a real day, or undefined. */
export function parseIsoDate(text: string): CalendarDate | undefined {
  const m = ISO_DAY.exec(text);
  return m ? valid({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }) : undefined;
}

export function isIsoDate(text: string): boolean {
  return parseIsoDate(text) !== undefined;
}

// Day arithmetic directly on ISO day strings, for the store's hot loops (no validation: give them valid days).

/** Days since 1970-01-01 of an ISO day. */
export function isoEpochDay(isoDate: string): number {
  return Date.UTC(Number(isoDate.slice(0, 4)), Number(isoDate.slice(5, 7)) - 1, Number(isoDate.slice(8, 10))) / DAY_MS;
}

export function isoFromEpochDay(epochDay: number): string {
  return new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
}

export function addIsoDays(isoDate: string, days: number): string {
  return isoFromEpochDay(isoEpochDay(isoDate) + days);
}

export function isoFirstOfMonth(isoDate: string): string {
  return `${isoDate.slice(0, 7)}-01`;
}

export function isoLastOfMonth(isoDate: string): string {
  const days = daysInMonth(Number(isoDate.slice(0, 4)), Number(isoDate.slice(5, 7)));
  return `${isoDate.slice(0, 7)}-${String(days).padStart(2, '0')}`;
}

// ---------------------------------------------------------------- the legacy wire

/** The largest |ms| a JavaScript Date holds (±100,000,000 days around 1970, ECMA-262 21.4.1.1). */
export const MAX_INSTANT_MS = 8.64e15;

/**
 * The instant (ms since epoch) a `/Date(ms[±hhmm])/` string names; the offset only says how it was displayed.
 * Undefined when the text is not one, or names an instant no Date holds (`/Date(99999999999999999)/`).
 */
export function parseLegacyInstant(text: string): number | undefined {
  return legacyDateParts(text)?.ms;
}

/** A `/Date(ms)/` string whose instant no Date holds: no writer could show it as a date. */
export function isLegacyInstantOutOfRange(text: string): boolean {
  const parts = legacyDateParts(text);
  return parts !== undefined && parts.ms === undefined;
}

/**
 * A `/Date(ms[±hhmm])/` string read once: its instant (undefined beyond what a Date holds), the kind it was written for
 * (toLegacyDate: no offset Utc, `-0000` Unspecified, any other offset Local), and the offset it names in minutes (0
 * unless Local); undefined when it is no such string.
 */
function legacyDateParts(
  text: string,
): { ms: number | undefined; kind: LegacyDateKind; offsetMinutes: number } | undefined {
  const m = WCF_DATE.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]);
  const ms = Math.abs(value) <= MAX_INSTANT_MS ? value : undefined;
  if (!m[2]) return { ms, kind: 'Utc', offsetMinutes: 0 };
  if (m[2] === '-' && m[3] === '00' && m[4] === '00') return { ms, kind: 'Unspecified', offsetMinutes: 0 };
  return { ms, kind: 'Local', offsetMinutes: (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4])) };
}

const KIND_SUFFIX: Record<LegacyDateKind, string> = { Utc: '', Local: '+0000', Unspecified: '-0000' };
/** The zone an ISO 8601 form (XML's xs:dateTime, jsconfig's ISO8601) carries for each kind, on a UTC server. */
export const ISO_ZONE_OF_KIND: Record<LegacyDateKind, string> = { Utc: 'Z', Local: '+00:00', Unspecified: '' };

/** An instant as ServiceStack wrote a DateTime of `kind` (UTC by default): `/Date(<ms>[+0000|-0000])/`. */
export function formatLegacyInstant(ms: number, kind: LegacyDateKind = 'Utc'): string {
  return `/Date(${ms}${KIND_SUFFIX[kind]})/`;
}

/**
 * A calendar date at 00:00 as ServiceStack wrote a DateTime: in the form of the kind it was read with, else as a Local
 * DateTime (`/Date(<ms>+0000)/`), what 4.5.14 wrote for dates it read from the query, forms, JSV and `yyyy-MM-dd`; a
 * Local date the client sent with an offset at 00:00 in that offset (`/Date(<ms>-0500)/`), so that a client outside
 * UTC reads back the day it sent.
 */
export function toLegacyDate({ year, month, day, kind = 'Local', offsetMinutes }: CalendarDate): string {
  const midnightUtc = Date.UTC(year, month - 1, day);
  if (kind !== 'Local' || offsetMinutes === undefined) return formatLegacyInstant(midnightUtc, kind);
  return `/Date(${midnightUtc - offsetMinutes * 60_000}${wcfOffset(offsetMinutes)})/`;
}

/**
 * The wall-clock time (`yyyy-MM-ddTHH:mm:ss.sss`) and zone (`Z`, `±hh:mm`, or '' for an unspecified kind) a
 * `/Date(ms[±hhmm])/` string shows, as the ISO forms (xs:dateTime, JSV, jsconfig's ISO8601) write it; undefined when
 * it is no such string or names no representable time.
 */
export function legacyWallClock(text: string): { ms: number; wallClock: string; zone: string } | undefined {
  const parts = legacyDateParts(text);
  if (parts?.ms === undefined) return undefined;
  const { ms, kind, offsetMinutes } = parts;
  const shown = new Date(ms + offsetMinutes * 60_000);
  if (Number.isNaN(shown.getTime())) return undefined;
  const zone =
    kind === 'Local'
      ? `${wcfOffset(offsetMinutes).slice(0, 3)}:${wcfOffset(offsetMinutes).slice(3)}`
      : ISO_ZONE_OF_KIND[kind];
  return { ms, wallClock: shown.toISOString().slice(0, 23), zone };
}

/** A `/Date(ms[±hhmm])/` value exactly as a DTO holds one (no escaped slash, no white space around it). */
const DTO_LEGACY_DATE = /^\/Date\(-?\d+(?:[+-]\d{4})?\)\/$/;

/** legacyWallClock of a DTO's value that is exactly a `/Date(…)/` string; undefined for any other text. */
export function dtoDateWallClock(value: string): ReturnType<typeof legacyWallClock> {
  return DTO_LEGACY_DATE.test(value) ? legacyWallClock(value) : undefined;
}

/** 4.5's ParseManual for 10-character values: `dd/MM/yyyy` (day first) when the last part has 4 digits, else y-M-d. */
const TEN_CHAR_DATE = /^(\d{1,4})[-/](\d{1,2})[-/](\d{1,4})$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)' +
  '?|nov(?:ember)?|dec(?:ember)?)';
const TIME_ZONE = '(?:[T ](\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?|([+-]\\d{2}:?\\d{2}))?';
/** What .NET's DateTime.Parse (InvariantCulture) read of the forms clients send: numeric dates month first. */
const GENERAL_FORMS: { pattern: RegExp; order: 'ymd' | 'mdy' | 'Mdy' | 'dMy' }[] = [
  { pattern: new RegExp(`^(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})${TIME_ZONE}$`), order: 'ymd' },
  { pattern: new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})${TIME_ZONE}$`), order: 'mdy' },
  { pattern: new RegExp(`^${MONTH_NAME}\\.? (\\d{1,2}),? (\\d{4})${TIME_ZONE}$`, 'i'), order: 'Mdy' },
  { pattern: new RegExp(`^(\\d{1,2}) ${MONTH_NAME}\\.?,? (\\d{4})${TIME_ZONE}$`, 'i'), order: 'dMy' },
];

/** A real day in the wire's years (see MIN_WIRE_YEAR), or undefined. */
function wireDay(date: CalendarDate): CalendarDate | undefined {
  return date.year >= MIN_WIRE_YEAR && date.year <= MAX_WIRE_YEAR ? valid(date) : undefined;
}

function wireDayOfInstant(ms: number): CalendarDate | undefined {
  const d = new Date(ms);
  const year = d.getUTCFullYear(); // NaN for an invalid date
  if (!(year >= MIN_WIRE_YEAR && year <= MAX_WIRE_YEAR)) return undefined;
  return { year, month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** .NET's widest UTC offset (DateTimeOffset): ±14:00. */
const MAX_OFFSET_MINUTES = 14 * 60;

/** Offset in minutes of `Z`, `+0200` or `+02:00`; undefined beyond ±14:00 or with 60 minutes or more. */
function zoneMinutes(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const mins = Number(digits.slice(2));
  const minutes = hours * 60 + mins;
  if (mins > 59 || minutes > MAX_OFFSET_MINUTES) return undefined;
  return zone.startsWith('-') ? -minutes : minutes;
}

/** `+0200` / `-0500`: an offset as `/Date(ms±hhmm)/` writes it. */
function wcfOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}${two(abs % 60)}`;
}

/**
 * A date with an optional time and zone: the calendar date as written, the client's own day; a zone (`Z`, `+02:00`)
 * is kept as its offset, in which the date is written back (4.5 converted such values to the instant they name: the
 * service keeps the day the client meant, 2025-01-01T00:00:00+02:00 is 1 January at 00:00+02:00).
 */
function dateAt(date: CalendarDate, hh = '0', mi = '0', ss = '0', zone: string | undefined): CalendarDate | undefined {
  const day = wireDay(date);
  if (!day || Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return undefined;
  if (zone === undefined) return day;
  const offsetMinutes = zoneMinutes(zone);
  return offsetMinutes === undefined ? undefined : { ...day, offsetMinutes };
}

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

function generalDate(value: string): CalendarDate | undefined {
  for (const { pattern, order } of GENERAL_FORMS) {
    const m = pattern.exec(value);
    if (!m) continue;
    const [, a, b, c, hh, mi, ss, zone, dateZone] = m as unknown as (string | undefined)[];
    const date =
      order === 'ymd'
        ? { year: Number(a), month: Number(b), day: Number(c) }
        : order === 'mdy'
          ? { year: Number(c), month: Number(a), day: Number(b) }
          : order === 'Mdy'
            ? { year: Number(c), month: monthOf(a!), day: Number(b) }
            : { year: Number(c), month: monthOf(b!), day: Number(a) };
    return dateAt(date, hh, mi, ss, zone ?? dateZone);
  }
  return undefined;
}

/**
 * The calendar date a legacy date string (any accepted input form) stands for, or undefined when it is not a date.
 * Read as a real ServiceStack 4.5.14 host read it (DateTimeSerializer.ParseShortestXsdDateTime): `/Date(ms)/` and
 * `/Date(ms±hhmm)/` (the date of ms shifted by the offset); `yyyyMMdd`; a 10-character `dd/MM/yyyy` day first
 * (`01/02/2025` is 1 February) and `yyyy-MM-dd`; otherwise as .NET's DateTime.Parse read it: `2025-1-1`, `2025/01/02`,
 * month first `1/2/2025` and `12/31/2025`, `Jan 1 2025`, `2 Feb 2025`, with an optional time. A date sent with an
 * offset (`/Date(ms±hhmm)/`, `+02:00`, up to ±14:00) is the day the client meant there, the offset kept
 * (offsetMinutes). Years 0100-9999.
 */
export function parseLegacyCalendarDate(text: string): CalendarDate | undefined {
  const date = calendarDateOf(text.trim());
  return date && { ...date, kind: legacyDateKind(text.trim()) };
}

/**
 * The DateTimeKind 4.5.14 gave a date it read from text (query, form, JSON string, JSV, CSV): `/Date(ms)/` Utc,
 * `yyyyMMdd` and any zone-less 19-character value (`yyyy-MM-ddTHH:mm:ss`, `01/02/2025 00:00:00`: DateTime.Parse's)
 * Unspecified, anything else (`/Date(ms±hhmm)/` included) Local.
 */
function legacyDateKind(value: string): LegacyDateKind {
  const wcf = WCF_DATE.exec(value);
  if (wcf) return wcf[2] ? 'Local' : 'Utc'; // `-0000` too: 4.5 read it as a local time, though it writes Unspecified so
  return COMPACT_DATE.test(value) || (value.length === 19 && !ZONE_AT_END.test(value)) ? 'Unspecified' : 'Local';
}
const ZONE_AT_END = /(Z|[+-]\d{2}:?\d{2})$/;

function calendarDateOf(value: string): CalendarDate | undefined {
  const wcf = WCF_DATE.exec(value);
  if (wcf) {
    const [, ms, sign, hh, mm] = wcf;
    const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) : 0;
    const day = wireDayOfInstant(Number(ms) + offsetMinutes * 60_000);
    // An offset .NET could not hold (`+9999`) names the day as before, written back at 00:00 UTC.
    return day && sign && Math.abs(offsetMinutes) <= MAX_OFFSET_MINUTES && Number(mm) < 60
      ? { ...day, offsetMinutes }
      : day;
  }
  const compact = COMPACT_DATE.exec(value);
  if (compact) return wireDay({ year: Number(compact[1]), month: Number(compact[2]), day: Number(compact[3]) });
  if (value.length === 10) {
    const parts = TEN_CHAR_DATE.exec(value);
    if (parts) {
      const [, a, b, c] = parts as unknown as string[];
      const manual =
        c!.length === 4
          ? wireDay({ year: Number(c), month: Number(b), day: Number(a) })
          : wireDay({ year: Number(a), month: Number(b), day: Number(c) });
      if (manual) return manual;
    }
  }
  return generalDate(value);
}

/**
 * Canonical input form for the validator and the service: the calendar date the value names, in the form 4.5 reads
 * with the same kind: `yyyy-MM-dd` (Local), `/Date(<ms at 00:00 there>±hhmm)/` (Local, sent with an offset),
 * `yyyyMMdd` (Unspecified) or `/Date(<ms at 00:00 UTC>)/` (Utc).
 */
export function canonicalLegacyDateInput(text: string): string | undefined {
  const date = parseLegacyCalendarDate(text);
  if (!date) return undefined;
  if (date.kind === 'Utc') return formatLegacyInstant(Date.UTC(date.year, date.month - 1, date.day));
  if (date.kind === 'Local' && date.offsetMinutes) return toLegacyDate(date); // `/Date(<00:00 there>±hhmm)/`
  return date.kind === 'Unspecified' ? formatIsoDate(date).replace(/-/g, '') : formatIsoDate(date);
}
