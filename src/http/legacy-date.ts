/**
 * Dates on the legacy wire. ServiceStack read `/Date(ms)/`, `/Date(ms±hhmm)/`, `\/Date(...)\/`, ISO 8601 and
 * `yyyyMMdd`; it wrote `/Date(ms)/` for UTC values. The report only needs the calendar date the client meant,
 * so an instant with an offset is read in that offset, and ISO dates are taken as written.
 */
export interface CalendarDate {
  year: number;
  month: number; // 1-12
  day: number;
}

const WCF_DATE = /^\\?\/Date\((-?\d+)([+-])?(\d{2})?(\d{2})?\)\\?\/$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;

function valid(date: CalendarDate): CalendarDate | undefined {
  const probe = new Date(Date.UTC(date.year, date.month - 1, date.day));
  return probe.getUTCFullYear() === date.year && probe.getUTCMonth() === date.month - 1 && probe.getUTCDate() === date.day
    ? date
    : undefined;
}

function fromEpoch(ms: number): CalendarDate | undefined {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return undefined;
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The instant (ms since epoch) a `/Date(ms[±hhmm])/` string names; the offset only says how it was displayed. */
export function parseLegacyInstant(text: string): number | undefined {
  const ms = WCF_DATE.exec(text.trim())?.[1];
  return ms === undefined ? undefined : Number(ms);
}

/** The calendar date a legacy date string stands for, or undefined when it is not a date. */
export function parseLegacyCalendarDate(text: string): CalendarDate | undefined {
  const value = text.trim();
  const wcf = WCF_DATE.exec(value);
  if (wcf) {
    const [, ms, sign, hh, mm] = wcf;
    if (sign && (hh === undefined || mm === undefined)) return undefined;
    const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) : 0;
    return fromEpoch(Number(ms) + offsetMinutes * 60_000);
  }
  const iso = ISO_DATE.exec(value) ?? COMPACT_DATE.exec(value);
  if (!iso) return undefined;
  const [, y, m, d, hh, mi, ss] = iso;
  if ((hh !== undefined && Number(hh) > 23) || (mi !== undefined && Number(mi) > 59) || (ss !== undefined && Number(ss) > 59)) {
    return undefined;
  }
  return valid({ year: Number(y), month: Number(m), day: Number(d) });
}

export function formatIsoDate({ year, month, day }: CalendarDate): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function parseIsoDate(text: string): CalendarDate {
  const [y, m, d] = text.split('-').map(Number);
  return { year: y!, month: m!, day: d! };
}

/** A calendar date as ServiceStack wrote a UTC DateTime: `/Date(<ms at 00:00 UTC>)/`. */
export function toLegacyDate({ year, month, day }: CalendarDate): string {
  return `/Date(${Date.UTC(year, month - 1, day)})/`;
}

/** Canonical input form for the validator: the WCF slashes unescaped, everything else as sent. */
export function canonicalLegacyDateInput(text: string): string {
  return text.trim().replace(/^\\\//, '/').replace(/\\\/$/, '/');
}
