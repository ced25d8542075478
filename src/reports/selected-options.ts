/** FlatOptions → the SelectedOptions echo and the link that rebuilds the same report. */
import type { SelectedOptions } from '../contract/dtos.ts';
import { formatIsoDate, toLegacyDate } from '../http/legacy-date.ts';
import type { FlatOptions } from './flat-options.ts';

export function toSelectedOptions(options: FlatOptions): SelectedOptions {
  return {
    ReportType: 'ProfitAndLoss',
    DateFrequency: 'Monthly',
    UseAccountMapping: options.useAccountMapping,
    VerticalAnalysisType: 'None',
    IncludeComputedColumns: options.includeComputedColumns,
    OrderBy: options.orderBy,
    RelativeDateRange: options.relativeDateRange,
    UseCustomDateRange: options.useCustomDateRange,
    StartDate: toLegacyDate(options.range.from),
    EndDate: toLegacyDate(options.range.to),
    Filters: options.filters,
    Locations: options.locations,
  };
}

/**
 * An absolute link to the GET route with the effective options, the range made explicit, so that it
 * rebuilds the same report on any instance at any later date.
 */
export function reportUrl(baseUrl: string, options: FlatOptions): string {
  const query = new URLSearchParams({
    CompanyId: String(options.companyId),
    UseCustomDateRange: 'true',
    StartDate: formatIsoDate(options.range.from),
    EndDate: formatIsoDate(options.range.to),
    UseAccountMapping: String(options.useAccountMapping),
    IncludeComputedColumns: String(options.includeComputedColumns),
    OrderBy: options.orderBy,
  });
  if (options.locations.length) query.set('Locations', options.locations.join(','));
  if (options.filters.length) query.set('Filters', options.filters.join(','));
  return `${baseUrl}/v1/Reporting/ProfitAndLoss/Flat?${query}`;
}
