/**
 * Relative date ranges (pnl-semantics §2), resolved against today in the company's time zone.
 * Quarters and years marked Fiscal start at the company's FiscalYearStartMonth.
 */
import type { RelativeDateRange } from '../contract/dtos.ts';
import { addMonths, firstOfMonth, lastOfMonth, type CalendarDate } from '../scalars/dates.ts';

export interface DateRange {
  from: CalendarDate;
  to: CalendarDate;
}

function months(startYear: number, startMonth: number, count: number): DateRange {
  const end = addMonths(startYear, startMonth, count - 1);
  return { from: firstOfMonth(startYear, startMonth), to: lastOfMonth(end.year, end.month) };
}

function toDate(range: DateRange, today: CalendarDate): DateRange {
  return { from: range.from, to: today };
}

/** The first month of the period of `length` months containing today, periods aligned on `startMonth`. */
function periodStart(today: CalendarDate, startMonth: number, length: number): { year: number; month: number } {
  const offset = (((today.month - startMonth) % 12) + 12) % 12;
  return addMonths(today.year, today.month, -(offset % length));
}

function sameDayOfYear(year: number, today: CalendarDate): CalendarDate {
  return { year, month: today.month, day: Math.min(today.day, lastOfMonth(year, today.month).day) };
}

export function resolveRelativeRange(
  range: RelativeDateRange,
  today: CalendarDate,
  fiscalStartMonth: number,
): DateRange {
  const thisMonth = months(today.year, today.month, 1);
  const lastMonth = addMonths(today.year, today.month, -1);
  const quarter = periodStart(today, 1, 3);
  const fiscalQuarter = periodStart(today, fiscalStartMonth, 3);
  const fiscalYear = periodStart(today, fiscalStartMonth, 12);
  switch (range) {
    case 'ThisMonth':
      return thisMonth;
    case 'ThisMonthToDate':
      return toDate(thisMonth, today);
    case 'LastMonth':
      return months(lastMonth.year, lastMonth.month, 1);
    case 'ThisCalendarQuarter':
      return months(quarter.year, quarter.month, 3);
    case 'ThisCalendarQuarterToDate':
      return toDate(months(quarter.year, quarter.month, 3), today);
    case 'LastCalendarQuarter': {
      const start = addMonths(quarter.year, quarter.month, -3);
      return months(start.year, start.month, 3);
    }
    case 'ThisCalendarYear':
      return months(today.year, 1, 12);
    case 'ThisCalendarYearToDate':
      return toDate(months(today.year, 1, 12), today);
    case 'LastCalendarYear':
      return months(today.year - 1, 1, 12);
    case 'LastCalendarYearToDate':
      return { from: firstOfMonth(today.year - 1, 1), to: sameDayOfYear(today.year - 1, today) };
    case 'ThisFiscalQuarter':
      return months(fiscalQuarter.year, fiscalQuarter.month, 3);
    case 'LastFiscalQuarter': {
      const start = addMonths(fiscalQuarter.year, fiscalQuarter.month, -3);
      return months(start.year, start.month, 3);
    }
    case 'ThisFiscalYear':
      return months(fiscalYear.year, fiscalYear.month, 12);
    case 'ThisFiscalYearToDate':
      return toDate(months(fiscalYear.year, fiscalYear.month, 12), today);
    case 'LastFiscalYear':
      return months(fiscalYear.year - 1, fiscalYear.month, 12);
    case 'Last3Months':
    case 'Last6Months':
    case 'Last12Months': {
      const count = Number(/\d+/.exec(range)![0]);
      const start = addMonths(today.year, today.month, -count);
      return months(start.year, start.month, count);
    }
  }
}
