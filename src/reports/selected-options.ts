/** FlatOptions → the SelectedOptions echo and the link that rebuilds the same report. */
import type { SelectedOptions } from '../contract/dtos.ts';
import { toLegacyDate } from '../scalars/dates.ts';
import type { FlatOptions } from './flat-options.ts';
import { reportLink } from './report-link.ts';

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
 * The report's own link, `<base>/v1/Reporting/ProfitAndLoss/Flat/Reports/<token>`: the effective options with
 * the range made explicit, signed (report-link.ts), so that it serves the same report on any instance sharing
 * the secret, at any later date, in JSON, CSV, XLSX or HTML.
 */
export function reportUrl(baseUrl: string, options: FlatOptions, secret: string): string {
  return reportLink(baseUrl, options, secret);
}
