/**
 * Imports a journal CSV (and optionally a reference CSV) into the ledger store, all-or-nothing.
 *   npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace]
 * Store selection as the service: DATABASE_URL → PostgreSQL, else DuckDB at $DATA_DIR/ledger.duckdb (default ./data).
 * Format: scripts/import-format.md. Exit code 1 with `line N: reason` on failure, 2 on bad usage; the summary gives
 * the company's date span and a report URL that covers it.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeSpan, ledgerSpan, spanReportUrl } from '../src/ops/ledger-span.ts';
import { CsvImportError, importLedgerCsv, parseReferenceCsv } from '../src/store/csv-import.ts';
import { usageError } from './cli-failure.ts';
import { configuredServiceUrl, runCli, withConfiguredStore } from './cli.ts';

const USAGE = 'npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace]';

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { reference: { type: 'string' }, company: { type: 'string' }, replace: { type: 'boolean' } },
    });
  } catch (error) {
    throw usageError(`${(error as Error).message}; usage: ${USAGE}`);
  }
}

/** The company the journal goes to: `--company N`, else the reference file's single company, else 1 (as the import). */
function companyOf(option: number | undefined, reference: string | undefined): number {
  if (option !== undefined) return option;
  const companies = reference === undefined ? [] : parseReferenceCsv(reference).batch.companies ?? [];
  return companies.length === 1 ? companies[0]!.id : 1;
}

async function main(): Promise<number> {
  const { values, positionals } = parse();
  const file = positionals[0];
  if (!file || positionals.length > 1) throw usageError(`name one journal file (${positionals.length} given); usage: ${USAGE}`);
  const companyId = values.company === undefined ? undefined : Number(values.company);
  if (companyId !== undefined && (!Number.isSafeInteger(companyId) || companyId <= 0)) {
    throw usageError(`--company must be a positive integer, got "${values.company}"; usage: ${USAGE}`);
  }
  // Both files are found before the store is opened (which creates DATA_DIR and its ledger file).
  if (statSync(file).isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR', path: file });
  const reference = values.reference === undefined ? undefined : readFileSync(values.reference, 'utf8');
  return withConfiguredStore(async (store, config) => {
    try {
      const started = Date.now();
      const journal = createReadStream(file); // streamed: the file's text is never held whole
      const count = await importLedgerCsv(store, journal, { reference, companyId, replace: values.replace === true });
      console.log(`loaded ${count} entries into the ${store.kind} store in ${Date.now() - started} ms`);
      const company = companyOf(companyId, reference);
      const span = await ledgerSpan(store, company);
      console.log(describeSpan(`Company ${company}`, span, new Date()));
      if (span) console.log(`  its report (send an API key: npm run keys -- create --company ${company}): ${spanReportUrl(configuredServiceUrl(config), company, span)}`);
      return 0;
    } catch (err) {
      if (err instanceof CsvImportError) {
        console.error(`${err.file === 'reference' ? values.reference : file}: ${err.message}`);
        return 1;
      }
      throw err;
    }
  });
}

await runCli(main);
