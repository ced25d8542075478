/**
 * What `npm start` prints once it is ready, before any log line: where it listens, a curl line that works, and for
 * each company (the first few) the span of its figures with a report URL that covers it, since a report without
 * `UseCustomDateRange=true` is this calendar year to date and a ledger of other years would show zeros. The demo key
 * (printed once: only its hash is stored) and a report page a browser opens with it.
 */
import type { AuthMode } from '../auth/auth-mode.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { describeSpan, ledgerSpan, spanReportUrl } from './ledger-span.ts';
import { warmUpHeaders } from './warm-up-requests.ts';

/** Companies listed with their span; a store with more says how many it left out. */
const COMPANIES_SHOWN = 3;

export interface BannerFacts {
  /** The service's root where it listens (under BASE_PATH). */
  url: string;
  /** Where users reach it (PUBLIC_BASE_URL, else `url`): the root of every URL printed. */
  publicUrl?: string;
  store: Pick<LedgerStore, 'kind' | 'listCompanies' | 'pnlSpan'>;
  auth: AuthMode;
  /** The demo key made on this start, if one was. */
  demoKey?: string;
}

/**
 * The report page (HTML) of a report URL: its `Url`, with the key as `apikey` so a browser can open it. Asked as the
 * warm-up asks (not a user's request: not logged).
 */
async function reportLink(reportUrl: string, key?: string): Promise<string | undefined> {
  const res = await fetch(reportUrl, { headers: { ...warmUpHeaders(), ...(key ? { 'X-ApiKey': key } : {}) } });
  if (!res.ok) return undefined;
  return ((await res.json()) as { Url: string }).Url;
}

/** A report link with the key as `apikey`, which a browser sends. */
const withKeyParameter = (link: string, key: string | undefined) =>
  key ? `${link}${link.includes('?') ? '&' : '?'}apikey=${encodeURIComponent(key)}` : link;

/**
 * Prints the banner: where it listens at once, then the lines that read the store (each company's span, one query) as
 * one block.
 */
export async function printStartBanner(
  facts: BannerFacts,
  print: (text: string) => void,
  today = new Date(),
): Promise<void> {
  const { url, store } = facts;
  print(`Reporting Service listening on ${url} (${store.kind} store)\n  curl ${url}/v1/echo/hello`);
  print((await ledgerLines(facts, today)).join('\n'));
}

async function ledgerLines({ url, publicUrl, store, auth, demoKey }: BannerFacts, today: Date): Promise<string[]> {
  const keyHeader = auth === 'none' ? '' : `-H 'X-ApiKey: ${demoKey ?? '<your key>'}' `;
  const lines: string[] = [];
  const companies = await store.listCompanies();
  let demoLink: string | undefined;
  for (const company of companies.slice(0, COMPANIES_SHOWN)) {
    const span = await ledgerSpan(store, company.id);
    lines.push(describeSpan(`Company ${company.id} (${company.name})`, span, today));
    if (!span) continue;
    lines.push(`  curl ${keyHeader}'${spanReportUrl(publicUrl ?? url, company.id, span)}'`);
    if (company.id === 1 && (demoKey || auth === 'none'))
      demoLink = await reportLink(spanReportUrl(url, company.id, span), demoKey);
  }
  if (companies.length > COMPANIES_SHOWN)
    lines.push(`  (${companies.length - COMPANIES_SHOWN} more companies: change CompanyId)`);
  if (companies.length === 0)
    lines.push('The store has no ledger yet: load one with `npm run import -- journal.csv --reference chart.csv`.');
  if (auth === 'none') lines.push('AUTH=none: reports need no API key.');
  else if (demoKey) lines.push(`Demo API key for company 1 (shown once, stored hashed): ${demoKey}`);
  else if (companies.length === 0)
    lines.push('Reports need an API key: the import prints the command that makes one for its company.');
  else
    lines.push(
      `Reports need an API key: make one with \`npm run keys -- create --company ${companies[0]!.id}\` ` +
        '(list: `npm run keys -- list`).',
    );
  if (demoLink) {
    lines.push(`  open in a browser (report page with chart): ${withKeyParameter(demoLink, demoKey)}`);
    lines.push(`  as a spreadsheet (or .csv): curl ${keyHeader}-o report.xlsx '${demoLink}.xlsx'`);
  } else if (companies.length > 0) {
    lines.push(
      "  as CSV or XLSX: the report's Url (in its JSON answer) with .csv or .xlsx appended, " +
        `e.g. curl ${keyHeader}-o report.csv '<Url>.csv'`,
    );
  }
  return lines;
}
