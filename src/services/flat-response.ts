/**
 * The shared last steps of GetFlat and GetFlatReport: sum the ledger for settled options, build the report,
 * and answer the GetFlatResponse with the report's signed link.
 */
import type { GetFlatResponse } from '../contract/dtos.ts';
import { formatIsoDate } from '../scalars/dates.ts';
import { buildFlatPnl, type FlatReport } from '../reports/flat-pnl.ts';
import type { FlatOptions } from '../reports/flat-options.ts';
import { toReportModel } from '../reports/render-report-model.ts';
import { reportUrl, toSelectedOptions } from '../reports/selected-options.ts';
import type { CompanyCatalog, LedgerStore } from '../store/ledger-store.ts';

export interface FlatResponseInput {
  store: LedgerStore;
  catalog: CompanyCatalog;
  options: FlatOptions;
  /** `<scheme>://<host>` of the request, and the secret that signs the link. */
  link: { baseUrl: string; secret: string };
  /** performance.now() when the request's work began, for BuildTime. */
  started: number;
}

export async function buildFlatResponse({ store, catalog, options, link, started }: FlatResponseInput): Promise<{ response: GetFlatResponse; report: FlatReport }> {
  const totals = await store.sumPnlByAccountMonth({
    companyId: options.companyId,
    from: formatIsoDate(options.range.from),
    to: formatIsoDate(options.range.to),
    locationIds: options.locations,
    optionGroups: options.optionGroups,
  });
  const report = buildFlatPnl(catalog, options, totals);
  return {
    response: {
      Url: reportUrl(link.baseUrl, options, link.secret),
      SelectedOptions: toSelectedOptions(options),
      ReportModel: toReportModel(report, performance.now() - started),
    },
    report,
  };
}
