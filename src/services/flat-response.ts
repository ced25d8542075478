/**
 * The shared steps of GetFlat and GetFlatReport: read the company's catalog and sums from one snapshot of the ledger
 * (settling the options in between; a conditional GET whose caller holds the answer stops there), build the report,
 * and answer the GetFlatResponse with its signed link. A request that timed out (its signal aborted) stops at the
 * next step instead of computing a report nobody reads.
 */
import type { GetFlatResponse } from '../contract/dtos.ts';
import type { Revalidate } from '../contract/service-result.ts';
import { formatIsoDate } from '../scalars/dates.ts';
import { buildFlatPnl, type FlatReport } from '../reports/flat-pnl.ts';
import type { FlatOptions } from '../reports/flat-options.ts';
import { toReportModel } from '../reports/render-report-model.ts';
import { reportUrl, toSelectedOptions } from '../reports/selected-options.ts';
import type { AccountMonthTotal, CompanyCatalog } from '../domain/ledger.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';

export interface FlatReadInput {
  store: LedgerStore;
  companyId: number;
  /** The catalog → the effective options (throws a 400/404 for options the catalog refuses). */
  settle: (catalog: CompanyCatalog) => FlatOptions;
  /** Called when the company does not exist. */
  missing: () => never;
  /** `<scheme>://<host>` of the request, and the secret that signs the report's link. */
  link: { baseUrl: string; secret: string };
  /**
   * A conditional GET's check, told what the answer is made of before the sums are read: the ledger's version, the
   * settled options and the report's link (which names the request's base URL and the signing secret); not BuildTime,
   * new every time, nor the caller's scope, which decides (checked before) whether the answer is given, not what it
   * holds. True when the caller holds that answer, and then nothing more is read.
   */
  revalidate?: Revalidate;
  signal?: AbortSignal;
}

export interface FlatRead {
  catalog: CompanyCatalog;
  options: FlatOptions;
  totals: AccountMonthTotal[];
  /** The report's signed link. */
  url: string;
}

/** The report's inputs, or undefined when `revalidate` found the caller holding its answer. */
export function readFlat(input: FlatReadInput): Promise<FlatRead | undefined> {
  const { store, companyId, settle, missing, link, revalidate, signal } = input;
  return store.readSnapshot(
    async (view) => {
      const catalog = (await view.getCatalog(companyId)) ?? missing();
      const options = settle(catalog);
      const url = reportUrl(link.baseUrl, options, link.secret);
      if (revalidate?.({ ledger: await view.ledgerVersion(companyId), options, url })) return undefined;
      const totals = await view.sumPnlByAccountMonth({
        companyId: options.companyId,
        from: formatIsoDate(options.range.from),
        to: formatIsoDate(options.range.to),
        locationIds: options.locations,
        optionGroups: options.optionGroups,
      });
      return { catalog, options, totals, url };
    },
    { signal },
  );
}

export interface FlatResponseInput extends FlatRead {
  /** performance.now() when the request's work began, for BuildTime. */
  started: number;
  signal?: AbortSignal;
}

export function buildFlatResponse({ catalog, options, totals, url, started, signal }: FlatResponseInput): {
  response: GetFlatResponse;
  report: FlatReport;
} {
  signal?.throwIfAborted();
  const report = buildFlatPnl(catalog, options, totals);
  signal?.throwIfAborted();
  return {
    response: {
      Url: url,
      SelectedOptions: toSelectedOptions(options),
      ReportModel: toReportModel(report, performance.now() - started),
    },
    report,
  };
}
