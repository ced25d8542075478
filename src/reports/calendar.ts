/** Calendar-date arithmetic on plain {year, month, day} values (no time zones, no Date objects leaking out). */
import type { CalendarDate } from '../http/legacy-date.ts';

export type { CalendarDate };

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
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

export function monthKey(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}`;
}
