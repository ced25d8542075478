/**
 * What the download formats say about a report besides its figures: title, company, range and the options it
 * was built with, in words, and the file name of a download. Pure: from the catalog and the effective options.
 */
import { formatIsoDate } from '../scalars/dates.ts';
import type { CompanyCatalog } from '../domain/ledger.ts';
import type { FlatOptions } from './flat-options.ts';
import { REPORT_HEADER } from './render-report-model.ts';

export interface ReportMeta {
  title: string;
  companyName: string;
  currency: string;
  /** `YYYY-MM-DD`, inclusive. */
  from: string;
  to: string;
  /** The options in words, one line each (`Locations: Downtown`, `Channel: DineIn`, ...). */
  basis: string[];
}

export function reportMeta(catalog: CompanyCatalog, options: FlatOptions): ReportMeta {
  const locationName = new Map(catalog.locations.map((l) => [l.id, l.name]));
  const optionById = new Map(catalog.trackingOptions.map((o) => [o.id, o]));
  const categoryName = new Map(catalog.trackingCategories.map((c) => [c.id, c.name]));
  const basis = [
    options.locations.length
      ? `Locations: ${options.locations.map((id) => locationName.get(id) ?? String(id)).join(', ')}`
      : 'All locations',
  ];
  const byCategory = new Map<string, string[]>();
  for (const id of options.filters) {
    const option = optionById.get(id);
    const category = option ? (categoryName.get(option.categoryId) ?? 'Tracking') : 'Tracking';
    byCategory.set(category, [...(byCategory.get(category) ?? []), option?.name ?? id]);
  }
  for (const [category, names] of byCategory) basis.push(`${category}: ${names.join(' or ')}`);
  if (options.relativeDateRange)
    basis.push(`Range: ${options.relativeDateRange.replace(/(?<=[a-z0-9])(?=[A-Z])/g, ' ')}`);
  if (options.useAccountMapping) basis.push('Standard chart of accounts');
  if (options.orderBy && options.orderBy !== 'Default')
    basis.push(`Order: ${options.orderBy.replace(/(?<=[a-z])(?=[A-Z])/g, ' ')}`);
  return {
    title: REPORT_HEADER,
    companyName: catalog.company.name,
    currency: catalog.company.baseCurrency,
    from: formatIsoDate(options.range.from),
    to: formatIsoDate(options.range.to),
    basis,
  };
}

function slug(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase() || 'company'
  );
}

/** `profit-and-loss_worked-example-co_2024-01-01_2024-02-29.csv`: ASCII only, safe in any Content-Disposition. */
export function reportFileName(meta: ReportMeta, extension: string): string {
  return `${slug(meta.title)}_${slug(meta.companyName)}_${meta.from}_${meta.to}.${extension}`;
}
