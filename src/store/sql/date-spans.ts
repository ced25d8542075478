/** How the store answers a date range from its monthly and daily pre-aggregates (ISO day strings throughout). */
import { addIsoDays, isIsoDate, isoFirstOfMonth, isoLastOfMonth } from '../../scalars/dates.ts';

/** A span of days that lies within one calendar month, read from the daily pre-aggregates. */
export interface DaySpan {
  from: string;
  to: string;
  month: string /* YYYY-MM-01 */;
}

/**
 * How to answer an inclusive date range from pre-aggregates: whole months from the monthly table
 * (firstMonth..lastMonth, both `YYYY-MM-01`, or null when none), and at most two clipped edge months from the daily
 * table.
 */
export interface RangePlan {
  firstMonth: string | null;
  lastMonth: string | null;
  head: DaySpan | null;
  tail: DaySpan | null;
}

export function planRange(from: string, to: string): RangePlan {
  if (!isIsoDate(from) || !isIsoDate(to)) throw new RangeError(`invalid date range ${from}..${to}`);
  if (from > to) return { firstMonth: null, lastMonth: null, head: null, tail: null };
  const fromWhole = from === isoFirstOfMonth(from);
  const toWhole = to === isoLastOfMonth(to);
  if (from.slice(0, 7) === to.slice(0, 7)) {
    return fromWhole && toWhole
      ? { firstMonth: isoFirstOfMonth(from), lastMonth: isoFirstOfMonth(from), head: null, tail: null }
      : { firstMonth: null, lastMonth: null, head: { from, to, month: isoFirstOfMonth(from) }, tail: null };
  }
  const head = fromWhole ? null : { from, to: isoLastOfMonth(from), month: isoFirstOfMonth(from) };
  const tail = toWhole ? null : { from: isoFirstOfMonth(to), to, month: isoFirstOfMonth(to) };
  const firstMonth = fromWhole ? from : addIsoDays(isoLastOfMonth(from), 1);
  const lastMonth = toWhole ? isoFirstOfMonth(to) : isoFirstOfMonth(addIsoDays(isoFirstOfMonth(to), -1));
  return firstMonth <= lastMonth
    ? { firstMonth, lastMonth, head, tail }
    : { firstMonth: null, lastMonth: null, head, tail };
}
