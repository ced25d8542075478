/** Calendar-date helpers (UTC arithmetic on `YYYY-MM-DD` strings; no time zones involved). */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

export function isValidDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function toEpochDay(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

export function fromEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return fromEpochDay(toEpochDay(date) + days);
}

export function firstOfMonth(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

export function lastOfMonth(date: string): string {
  const y = Number(date.slice(0, 4)), mo = Number(date.slice(5, 7));
  return `${date.slice(0, 7)}-${String(daysInMonth(y, mo)).padStart(2, '0')}`;
}

/** A span of days that lies within one calendar month, read from the daily pre-aggregates. */
export interface DaySpan { from: string; to: string; month: string /* YYYY-MM-01 */ }

/**
 * How to answer an inclusive date range from pre-aggregates: whole months from the monthly table
 * (firstMonth..lastMonth, both `YYYY-MM-01`, or null when none), and at most two clipped edge months from the daily table.
 */
export interface RangePlan {
  firstMonth: string | null;
  lastMonth: string | null;
  head: DaySpan | null;
  tail: DaySpan | null;
}

export function planRange(from: string, to: string): RangePlan {
  if (!isValidDate(from) || !isValidDate(to)) throw new RangeError(`invalid date range ${from}..${to}`);
  if (from > to) return { firstMonth: null, lastMonth: null, head: null, tail: null };
  const fromWhole = from === firstOfMonth(from);
  const toWhole = to === lastOfMonth(to);
  if (from.slice(0, 7) === to.slice(0, 7)) {
    return fromWhole && toWhole
      ? { firstMonth: firstOfMonth(from), lastMonth: firstOfMonth(from), head: null, tail: null }
      : { firstMonth: null, lastMonth: null, head: { from, to, month: firstOfMonth(from) }, tail: null };
  }
  const head = fromWhole ? null : { from, to: lastOfMonth(from), month: firstOfMonth(from) };
  const tail = toWhole ? null : { from: firstOfMonth(to), to, month: firstOfMonth(to) };
  const firstMonth = fromWhole ? from : addDays(lastOfMonth(from), 1);
  const lastMonth = toWhole ? firstOfMonth(to) : firstOfMonth(addDays(firstOfMonth(to), -1));
  return firstMonth <= lastMonth ? { firstMonth, lastMonth, head, tail } : { firstMonth: null, lastMonth: null, head, tail };
}
