/**
 * What every import path prints when it is done (a running server's, straight into DuckDB, into PostgreSQL): the
 * entries loaded, then each company's span of figures with a report a user can run at once, at the URL where the
 * service really answers, and how to get a key for it and the report as CSV or XLSX.
 */
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { describeSpan, ledgerSpan, spanReportUrl, type LedgerSpan } from './ledger-span.ts';

export interface ImportedCompany {
  id: number;
  name: string;
  span?: LedgerSpan;
}

/** The imported companies as the store holds them now (by SQL: for tools that exit right after). */
export async function importedCompanies(
  store: Pick<LedgerStore, 'listCompanies' | 'pnlSpan'>,
  ids: readonly number[],
): Promise<ImportedCompany[]> {
  const names = new Map((await store.listCompanies()).map((c) => [c.id, c.name]));
  const companies: ImportedCompany[] = [];
  for (const id of ids) {
    if (!names.has(id)) continue;
    companies.push({ id, name: names.get(id)!, span: await ledgerSpan(store, id) });
  }
  return companies;
}

export interface ImportSummary {
  loaded: number;
  /** e.g. `the duckdb store` or `the running server's duckdb store`. */
  into: string;
  ms: number;
  companies: readonly ImportedCompany[];
  /** The service's root where it answers (PUBLIC_BASE_URL, or its address and BASE_PATH). */
  serviceUrl: string;
  /** AUTH=none: no key header in the curl lines. */
  noKeys?: boolean;
}

/** The summary's lines, as a user reads them. */
export function importSummaryLines(summary: ImportSummary, today = new Date()): string[] {
  const lines = [`loaded ${summary.loaded} entries into ${summary.into} in ${summary.ms} ms`];
  const key = summary.noKeys ? '' : `-H 'X-ApiKey: <your key>' `;
  for (const company of summary.companies) {
    lines.push(describeSpan(`Company ${company.id} (${company.name})`, company.span, today));
    if (!company.span) continue;
    lines.push(`  curl ${key}'${spanReportUrl(summary.serviceUrl, company.id, company.span)}'`);
    if (!summary.noKeys) lines.push(`  a key for it: npm run keys -- create --company ${company.id}`);
  }
  return lines;
}
