/**
 * Dates, in one place and with no imports: the calendar date the service computes with ({year, month, day}, no
 * time zone), its ISO day form (`YYYY-MM-DD`, the store's and the report link's), calendar arithmetic, and the
 * legacy wire forms. ServiceStack read `/Date(ms)/`, `/Date(ms±hhmm)/`, `\/Date(...)\/`, ISO 8601 and `yyyyMMdd`;
 * it wrote `/Date(ms)/` for UTC values. The report only needs the calendar date the client meant, so an instant
 * with an offset is read in that offset, and ISO dates are taken as written.
 */
export interface CalendarDate {
  year: number;
  month: number; // 1-12
  day: number;
}

const DAY_MS = 86_400_000;
/**
 * Years every date on the wire must fall in, whatever its form: 9999 is .NET's DateTime maximum; 0100 is where the
 * ISO forms start (see valid()) and the contract's LegacyDateInput pattern, so `/Date(ms)/` obeys the same range.
 */
const MIN_WIRE_YEAR = 100;
const MAX_WIRE_YEAR = 9999;
/** `/Date(ms)/` with an optional `±hhmm` display offset; the slashes may come JSON-escaped (`\/`). */
const WCF_DATE = /^\\?\/Date\((-?\d+)(?:([+-])(\d{2})(\d{2}))?\)\\?\/$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;

// ---------------------------------------------------------------- calendar arithmetic

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The date when it names a real day that Date.UTC can represent (years 0-99 cannot: they map to 19xx). */
function valid(date: CalendarDate): CalendarDate | undefined {
  const probe = new Date(Date.UTC(date.year, date.month - 1, date.day));
  return probe.getUTCFullYear() === date.year && probe.getUTCMonth() === date.month - 1 && probe.getUTCDate() === date.day
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

/** The instant (ms since epoch) a `/Date(ms[±hhmm])/` string names; the offset only says how it was displayed. */
export function parseLegacyInstant(text: string): number | undefined {
  const ms = WCF_DATE.exec(text.trim())?.[1];
  return ms === undefined ? undefined : Number(ms);
}

/** An instant as ServiceStack wrote a UTC DateTime: `/Date(<ms>)/`. */
export function formatLegacyInstant(ms: number): string {
  return `/Date(${ms})/`;
}

/** A calendar date as ServiceStack wrote a UTC DateTime: `/Date(<ms at 00:00 UTC>)/`. */
export function toLegacyDate({ year, month, day }: CalendarDate): string {
  return formatLegacyInstant(Date.UTC(year, month - 1, day));
}

/** The calendar date a legacy date string (any accepted input form) stands for, or undefined when it is not a date. */
export function parseLegacyCalendarDate(text: string): CalendarDate | undefined {
  const value = text.trim();
  const wcf = WCF_DATE.exec(value);
  if (wcf) {
    const [, ms, sign, hh, mm] = wcf;
    const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) : 0;
    const d = new Date(Number(ms) + offsetMinutes * 60_000);
    const year = d.getUTCFullYear(); // NaN for an invalid date
    if (!(year >= MIN_WIRE_YEAR && year <= MAX_WIRE_YEAR)) return undefined;
    return { year, month: d.getUTCMonth() + 1, day: d.getUTCDate() };
  }
  const iso = ISO_DATE.exec(value) ?? COMPACT_DATE.exec(value);
  if (!iso) return undefined;
  const [, y, m, d, hh, mi, ss] = iso;
  if ((hh !== undefined && Number(hh) > 23) || (mi !== undefined && Number(mi) > 59) || (ss !== undefined && Number(ss) > 59)) {
    return undefined;
  }
  return valid({ year: Number(y), month: Number(m), day: Number(d) });
}

/** Canonical input form for the validator: the WCF slashes unescaped, everything else as sent. */
export function canonicalLegacyDateInput(text: string): string {
  return text.trim().replace(/^\\\//, '/').replace(/\\\/$/, '/');
}
