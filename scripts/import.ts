/**
 * Imports a journal CSV (and optionally a reference CSV) into the ledger store, all-or-nothing.
 *   npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace]
 * Store selection as the service: DATABASE_URL → PostgreSQL, else DuckDB at $DATA_DIR/ledger.duckdb (default ./data).
 * When a running server holds that DuckDB file, the server is handed the files (its DATA_DIR/keys.sock, as
 * `npm run keys` does) and loads them itself while it serves. On a terminal, a progress bar follows the journal as it
 * is read by the engine. Format: scripts/import-format.md. Exit code 1 with `line N: reason` on failure, 2 on bad
 * usage; the summary gives
 * the company's date span and a report URL that covers it.
 */
import cliProgress from 'cli-progress';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { importThroughServer, keyAdminSocketPath } from '../src/ops/key-admin-socket.ts';
import { describeSpan, ledgerSpan, spanReportUrl } from '../src/ops/ledger-span.ts';
import { CsvImportError, importLedgerCsv, parseReferenceCsv } from '../src/store/import/csv-import.ts';
import { readImportText, withImportFile } from '../src/store/import/import-file.ts';
import { IMPORT_STEPS, type ImportProgress } from '../src/store/ledger/ledger-store.ts';
import { runCli, usageError } from '../src/ops/cli-failure.ts';
import { configuredServiceUrl, withConfiguredStore } from './cli.ts';

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

/**
 * On a terminal, a progress bar over the import's steps (the file's share read within the first, when the engine says).
 */
function progressBar(file: string): { progress?: (at: ImportProgress) => void; done: () => void } {
  if (!process.stderr.isTTY) return { done: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'import {size} [{bar}] step {number}/{steps}: {name} | {duration_formatted}',
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const steps = IMPORT_STEPS.length;
  bar.start(steps * 100, 0, {
    size: `${(statSync(file).size / 1e6).toFixed(1)} MB`,
    number: 1,
    steps,
    name: IMPORT_STEPS[0],
  });
  // The bar redraws on a timer too, so the time shown keeps moving through a long step.
  return {
    progress: ({ step, name, fraction }) => bar.update(Math.round((step + fraction) * 100), { number: step + 1, name }),
    done: () => bar.stop(),
  };
}

/**
 * A running server holds the embedded file: it is handed the files and loads them into its own store. Undefined when
 * the store could not be opened for another reason (the caller raises that error).
 */
async function importThroughRunningServer(
  error: unknown,
  file: string,
  reference: string | undefined,
  options: { companyId?: number; replace: boolean },
): Promise<number | undefined> {
  const config = loadConfig();
  const socket = keyAdminSocketPath(config.dataDir);
  if (config.databaseUrl || !existsSync(socket) || !/in use by another process/.test(String(error))) return undefined;
  console.error(`a running server holds ${config.dataDir}: it imports the file (through ${socket})`);
  const started = Date.now();
  const reply = await importThroughServer(socket, {
    // Real paths: the server reads the files these name, never its own idea of a relative or /dev/fd path.
    journal: realpathSync(file),
    reference: reference === undefined ? undefined : realpathSync(reference),
    ...options,
  });
  if ('loaded' in reply) {
    console.log(`loaded ${reply.loaded} entries into the running server's duckdb store in ${Date.now() - started} ms`);
    return 0;
  }
  const refused = new CsvImportError(reply.refused.line, reply.refused.reason, reply.refused.file);
  console.error(`${refused.file === 'reference' ? reference : file}: ${refused.message}`);
  return 1;
}

function companyOf(option: number | undefined, reference: string | undefined): number {
  if (option !== undefined) return option;
  const companies = reference === undefined ? [] : (parseReferenceCsv(reference).batch.companies ?? []);
  return companies.length === 1 ? companies[0]!.id : 1;
}

async function main(): Promise<number> {
  const { values, positionals } = parse();
  const file = positionals[0];
  if (!file || positionals.length > 1)
    throw usageError(`name one journal file (${positionals.length} given); usage: ${USAGE}`);
  const companyId = values.company === undefined ? undefined : Number(values.company);
  if (companyId !== undefined && (!Number.isSafeInteger(companyId) || companyId <= 0)) {
    throw usageError(`--company must be a positive integer, got "${values.company}"; usage: ${USAGE}`);
  }
  // Both files are found before the store is opened (which creates DATA_DIR and its ledger file).
  if (statSync(file).isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR', path: file });
  await withImportFile(file, async () => undefined); // a regular file, or a sentence saying what it is instead
  const reference = values.reference === undefined ? undefined : await readImportText(values.reference);
  let opened = false;
  return withConfiguredStore(async (store, config) => {
    opened = true;
    try {
      const started = Date.now();
      const bar = progressBar(file);
      const count = await importLedgerCsv(
        store,
        { path: file },
        { reference, companyId, replace: values.replace === true, progress: bar.progress },
      ).finally(bar.done);
      console.log(`loaded ${count} entries into the ${store.kind} store in ${Date.now() - started} ms`);
      const company = companyOf(companyId, reference);
      // By SQL: the in-memory index a report would build is not needed by a process that exits now.
      const span = await ledgerSpan(store, company);
      console.log(describeSpan(`Company ${company}`, span, new Date()));
      if (span)
        console.log(
          `  its report (send an API key: npm run keys -- create --company ${company}): ${spanReportUrl(configuredServiceUrl(config), company, span)}`,
        );
      return 0;
    } catch (err) {
      if (err instanceof CsvImportError) {
        console.error(`${err.file === 'reference' ? values.reference : file}: ${err.message}`);
        return 1;
      }
      throw err;
    }
  }).catch(async (error: unknown) => {
    if (opened) throw error;
    const handed = await importThroughRunningServer(error, file, values.reference, {
      companyId,
      replace: values.replace === true,
    });
    if (handed === undefined) throw error;
    return handed;
  });
}

await runCli(main);
