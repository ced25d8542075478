/**
 * Imports a journal CSV (and optionally a reference CSV) into the ledger store, all-or-nothing.
 *   npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace]
 * Store selection as the service: DATABASE_URL → PostgreSQL, else DuckDB at $DATA_DIR/ledger.duckdb (default ./data).
 * Format: scripts/import-format.md. Exit code 1 with `line N: reason` on failure.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CsvImportError, importLedgerCsv } from '../src/store/csv-import.ts';
import { runCli, withConfiguredStore } from './cli.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { reference: { type: 'string' }, company: { type: 'string' }, replace: { type: 'boolean' } },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) {
    console.error('usage: npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace]');
    return 2;
  }
  const companyId = values.company === undefined ? undefined : Number(values.company);
  if (companyId !== undefined && (!Number.isSafeInteger(companyId) || companyId <= 0)) {
    console.error(`--company must be a positive integer, got "${values.company}"`);
    return 2;
  }
  const journal = createReadStream(file); // streamed: the file's text is never held whole
  const reference = values.reference === undefined ? undefined : readFileSync(values.reference, 'utf8');
  return withConfiguredStore(async (store) => {
    try {
      const started = Date.now();
      const count = await importLedgerCsv(store, journal, { reference, companyId, replace: values.replace === true });
      console.log(`loaded ${count} entries into the ${store.kind} store in ${Date.now() - started} ms`);
      return 0;
    } catch (err) {
      if (err instanceof CsvImportError) {
        console.error(err.file === 'reference' ? `${values.reference}: ${err.message}` : err.message);
      } else {
        console.error(`import failed: ${(err as Error).message}`);
      }
      return 1;
    }
  });
}

await runCli(main);
