/**
 * GetFlatRequest → the effective options of a flat P&L (pnl-semantics §3.1–3.2): validation against the
 * company's catalog, range resolution, defaults. Pure: `today` is given (asked for only by a relative range).
 */
import type { GetFlatRequest, OrderBy, RelativeDateRange } from '../contract/dtos.ts';
import { appError, type FieldError } from '../errors/app-error.ts';
import type { CompanyCatalog } from '../domain/ledger.ts';
import { compareDates, parseLegacyCalendarDate, type CalendarDate } from '../scalars/dates.ts';
import { resolveRelativeRange, type DateRange } from './relative-ranges.ts';

export const DEFAULT_RELATIVE_RANGE: RelativeDateRange = 'ThisCalendarYearToDate';

export interface FlatOptions {
  companyId: number;
  useAccountMapping: boolean;
  includeComputedColumns: boolean;
  orderBy: OrderBy;
  useCustomDateRange: boolean;
  /** Undefined when the range is custom. */
  relativeDateRange?: RelativeDateRange;
  range: DateRange;
  /** Lowercase 32-hex option ids, as requested (deduplicated). */
  filters: string[];
  /** Requested options grouped by tracking category (OR within, AND across). */
  optionGroups: string[][];
  /** Empty = all locations. */
  locations: number[];
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function calendarDate(value: string | undefined): CalendarDate | undefined {
  return value === undefined ? undefined : parseLegacyCalendarDate(value);
}

/** Limits on what one report may compute. */
export interface ReportLimits {
  /** Most monthly columns (MAX_REPORT_COLUMNS). */
  maxColumns: number;
}

export const DEFAULT_REPORT_LIMITS: ReportLimits = { maxColumns: 1200 };

/** Monthly columns of a range: one per calendar month it touches. */
export function monthsSpanned(range: DateRange): number {
  return (range.to.year - range.from.year) * 12 + (range.to.month - range.from.month) + 1;
}

function checkColumns(range: DateRange, limits: ReportLimits, errors: FieldError[]): DateRange | undefined {
  const months = monthsSpanned(range);
  if (months <= limits.maxColumns) return range;
  const message =
    `The range from 'Start Date' to 'End Date' spans ${months} months; a report has at most ${limits.maxColumns} ` +
    `monthly columns.`;
  errors.push(
    { errorCode: 'LessThanOrEqual', fieldName: 'StartDate', message },
    { errorCode: 'LessThanOrEqual', fieldName: 'EndDate', message },
  );
  return undefined;
}

function customRange(request: GetFlatRequest, errors: FieldError[]): DateRange | undefined {
  const from = calendarDate(request.StartDate);
  const to = calendarDate(request.EndDate);
  if (!from)
    errors.push({
      errorCode: 'NotEmpty',
      fieldName: 'StartDate',
      message: "'Start Date' must not be empty when UseCustomDateRange is true.",
    });
  if (!to)
    errors.push({
      errorCode: 'NotEmpty',
      fieldName: 'EndDate',
      message: "'End Date' must not be empty when UseCustomDateRange is true.",
    });
  if (!from || !to) return undefined;
  if (compareDates(from, to) > 0) {
    errors.push({
      errorCode: 'LessThanOrEqual',
      fieldName: 'StartDate',
      message: "'Start Date' must be on or before 'End Date'.",
    });
    return undefined;
  }
  return { from, to };
}

function groupOptions(filters: string[], catalog: CompanyCatalog, errors: FieldError[]): string[][] {
  const categoryOf = new Map(catalog.trackingOptions.map((o) => [o.id, o.categoryId]));
  const groups = new Map<string, string[]>();
  for (const id of filters) {
    const category = categoryOf.get(id);
    if (!category) {
      errors.push({
        errorCode: 'NotFound',
        fieldName: 'Filters',
        message: `Tracking option '${id}' does not exist in company ${catalog.company.id}.`,
      });
      continue;
    }
    groups.set(category, [...(groups.get(category) ?? []), id]);
  }
  return [...groups.values()];
}

function checkLocations(locations: number[], catalog: CompanyCatalog, errors: FieldError[]): void {
  const known = new Set(catalog.locations.map((l) => l.id));
  for (const id of locations) {
    if (!known.has(id)) {
      errors.push({
        errorCode: 'NotFound',
        fieldName: 'Locations',
        message: `Location ${id} does not belong to company ${catalog.company.id}.`,
      });
    }
  }
}

function fail(errors: FieldError[]): never {
  throw appError('InvalidFields', { first: errors[0]!.message }, { fieldErrors: errors });
}

/** The CompanyId the request names, or a 400 naming the field. */
export function requireCompanyId(request: GetFlatRequest): number {
  if (request.CompanyId === undefined)
    fail([{ errorCode: 'NotEmpty', fieldName: 'CompanyId', message: "'Company Id' must not be empty." }]);
  return request.CompanyId;
}

export function unknownCompany(companyId: number): never {
  fail([{ errorCode: 'NotFound', fieldName: 'CompanyId', message: `Company ${companyId} does not exist.` }]);
}

export function resolveFlatOptions(
  request: GetFlatRequest,
  catalog: CompanyCatalog,
  today: () => CalendarDate,
  limits: ReportLimits = DEFAULT_REPORT_LIMITS,
): FlatOptions {
  const errors: FieldError[] = [];
  const locations = unique(request.Locations ?? []);
  const filters = unique((request.Filters ?? []).map((f) => f.toLowerCase()));
  checkLocations(locations, catalog, errors);
  const optionGroups = groupOptions(filters, catalog, errors);
  const useCustomDateRange = request.UseCustomDateRange ?? false;
  const requested = useCustomDateRange
    ? customRange(request, errors)
    : resolveRelativeRange(DEFAULT_RELATIVE_RANGE, today(), catalog.company.fiscalYearStartMonth);
  const range = requested && checkColumns(requested, limits, errors);
  if (errors.length || !range) fail(errors);
  return {
    companyId: catalog.company.id,
    useAccountMapping: request.UseAccountMapping ?? false,
    includeComputedColumns: request.IncludeComputedColumns ?? false,
    orderBy: request.OrderBy ?? '',
    useCustomDateRange,
    relativeDateRange: useCustomDateRange ? undefined : DEFAULT_RELATIVE_RANGE,
    range,
    filters,
    optionGroups,
    locations,
  };
}
