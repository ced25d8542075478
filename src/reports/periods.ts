/** Monthly columns: one per calendar month intersecting the range, first and last clipped (pnl-semantics §3.3). */
import { compareDates, lastOfMonth, monthKey, type CalendarDate } from '../scalars/dates.ts';
import type { DateRange } from './relative-ranges.ts';

export interface Period {
  /** `YYYY-MM`, the key the store groups by. */
  key: string;
  /** `MMM yyyy`, e.g. `Jan 2024`. */
  label: string;
  from: CalendarDate;
  to: CalendarDate;
}

export const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function monthlyPeriods(range: DateRange): Period[] {
  const periods: Period[] = [];
  let { year, month } = range.from;
  while (compareDates({ year, month, day: 1 }, range.to) <= 0) {
    const end = lastOfMonth(year, month);
    periods.push({
      key: monthKey(year, month),
      label: `${MONTH_NAMES[month - 1]} ${year}`,
      from: periods.length === 0 ? range.from : { year, month, day: 1 },
      to: compareDates(end, range.to) > 0 ? range.to : end,
    });
    if (month === 12) {
      month = 1;
      year += 1;
    } else month += 1;
  }
  return periods;
}
