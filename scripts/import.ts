/**
 * Imports a journal CSV (and optionally a reference CSV) into the ledger store, all-or-nothing.
 *   npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace] [--update-reference] [--append]
 * Store selection as the service: DATABASE_URL → PostgreSQL, else DuckDB at $DATA_DIR/ledger.duckdb (default ./data);
 * when a running server holds that DuckDB file, the server is handed the files (its DATA_DIR/keys.sock). Every path
 * reports alike: changes to existing data listed (asked on a terminal, else allowed only by flag), a progress bar on a
 * terminal, then each company's span and a report URL where the service answers. Format: scripts/import-format.md.
 */
import cliProgress from 'cli-progress';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { loadConfig, type AppConfig } from '../src/config.ts';
import { importThroughServer, keyAdminSocketPath } from '../src/ops/key-admin-socket.ts';
import { importedCompanies, importSummaryLines, type ImportedCompany } from '../src/ops/import-summary.ts';
import { CsvImportError, importedCompanyIds, importLedgerCsv } from '../src/store/import/csv-import.ts';
import {
  IMPORT_CHANGE_FLAGS,
  ImportNotConfirmed,
  refusalSentence,
  unallowed,
  type AllowedChanges,
  type ImportChange,
} from '../src/store/import/import-changes.ts';
import { IMPORT_STEPS, type ImportProgress } from '../src/store/ledger/writer.ts';
import { readImportText, withImportFile } from '../src/store/import/import-file.ts';
import { runCli, usageError } from '../src/ops/cli-failure.ts';
import { runningServiceUrl, withConfiguredStore } from './cli.ts';

const USAGE =
  'npm run import -- <file.csv> [--reference ref.csv] [--company N] [--replace] [--update-reference] [--append]';
const HELP = `usage: ${USAGE}
  --reference ref.csv   companies, locations, accounts and tracking options to create or update first
  --company N           the journal's company (default: the reference file's single company, else 1)
  --replace             an entry id imported before replaces the earlier entry (else it is refused)
  ${IMPORT_CHANGE_FLAGS.reference}    allow renaming (or otherwise changing) what the store holds, without asking
  ${IMPORT_CHANGE_FLAGS.entries}              allow adding entries to a company that has some, without asking
Changes to existing data are listed first; on a terminal the import asks before it goes on.`;

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        reference: { type: 'string' },
        company: { type: 'string' },
        replace: { type: 'boolean' },
        'update-reference': { type: 'boolean' },
        append: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw usageError(`${(error as Error).message}; usage: ${USAGE}`);
  }
}

/**
 * On a terminal, a progress bar over the import's steps (the file's share read within the first, when the engine
 * says), drawn from the first step on (after any question).
 */
function progressBar(file: string): { progress?: (at: ImportProgress) => void; done: () => void } {
  if (!process.stderr.isTTY) return { done: () => undefined };
  const steps = IMPORT_STEPS.length;
  let bar: cliProgress.SingleBar | undefined;
  return {
    progress: ({ step, name, fraction }) => {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: 'import {size} [{bar}] step {number}/{steps}: {name} | {duration_formatted}',
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        // The bar redraws on a timer too, so the time shown keeps moving through a long step.
        bar.start(steps * 100, 0, { size: `${(statSync(file).size / 1e6).toFixed(1)} MB`, number: 1, steps, name });
      }
      bar.update(Math.round((step + fraction) * 100), { number: step + 1, name });
    },
    done: () => bar?.stop(),
  };
}

/** The changes an import makes to existing data, listed before it asks or goes on. */
function listChanges(changes: readonly ImportChange[], allowed: AllowedChanges): void {
  console.error('This import changes data the store already holds:');
  for (const change of changes) {
    const flag = allowed[change.kind] ? ` (allowed by ${IMPORT_CHANGE_FLAGS[change.kind]})` : '';
    console.error(`  - ${change.text}${flag}`);
  }
}

/** On a terminal: asks whether to go on (no by default). */
async function askToGoOn(): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question('Go on with these changes? [y/N] ')).trim());
  } finally {
    terminal.close();
  }
}

interface Run {
  file: string;
  reference: string | undefined;
  referenceText: string | undefined;
  companyId: number | undefined;
  replace: boolean;
  allowed: AllowedChanges;
  /** A terminal to ask on (stdin and stderr). */
  interactive: boolean;
}

function printSummary(
  result: { loaded: number; companies: ImportedCompany[]; into: string; ms: number; serviceUrl: string },
  config: AppConfig,
): void {
  for (const line of importSummaryLines({ ...result, noKeys: config.auth === 'none' })) console.log(line);
}

/** A refusal of the import: its line in the file, or the changes nobody allowed. Exit code 1. */
function refused(run: Run, error: CsvImportError | ImportNotConfirmed): number {
  if (error instanceof ImportNotConfirmed) console.error(refusalSentence(error.changes));
  else console.error(`${error.file === 'reference' ? run.reference : run.file}: ${error.message}`);
  return 1;
}

/**
 * A running server holds the embedded file: it is handed the files and loads them into its own store. Undefined when
 * the store could not be opened for another reason (the caller raises that error).
 */
async function importThroughRunningServer(error: unknown, run: Run): Promise<number | undefined> {
  const config = loadConfig();
  const socket = keyAdminSocketPath(config.dataDir);
  if (config.databaseUrl || !existsSync(socket) || !/in use by another process/.test(String(error))) return undefined;
  console.error(`a running server holds ${config.dataDir}: it imports the file (through ${socket})`);
  const started = Date.now();
  const bar = progressBar(run.file);
  const reply = await importThroughServer(
    socket,
    {
      // Real paths: the server reads the files these name, never its own idea of a relative or /dev/fd path.
      journal: realpathSync(run.file),
      reference: run.reference === undefined ? undefined : realpathSync(run.reference),
      companyId: run.companyId,
      replace: run.replace,
      allow: run.allowed,
    },
    {
      progress: bar.progress,
      changes: (changes) => listChanges(changes, run.allowed),
      confirm: run.interactive ? askToGoOn : undefined,
    },
  ).finally(bar.done);
  if ('unconfirmed' in reply) return refused(run, new ImportNotConfirmed(reply.unconfirmed));
  if ('refused' in reply) {
    const { line, reason, file } = reply.refused;
    return refused(run, new CsvImportError(line, reason, file));
  }
  const serviceUrl = await runningServiceUrl(config);
  const into = "the running server's duckdb store";
  printSummary({ ...reply, into, ms: Date.now() - started, serviceUrl }, config);
  return 0;
}

async function main(): Promise<number> {
  const { values, positionals } = parse();
  if (values.help) {
    console.log(HELP);
    return 0;
  }
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
  const run: Run = {
    file,
    reference: values.reference,
    referenceText: values.reference === undefined ? undefined : await readImportText(values.reference),
    companyId,
    replace: values.replace === true,
    allowed: { reference: values['update-reference'] === true, entries: values.append === true },
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  };
  let opened = false;
  return withConfiguredStore(async (store, config) => {
    opened = true;
    const started = Date.now();
    const bar = progressBar(file);
    try {
      const loaded = await importLedgerCsv(
        store,
        { path: file },
        {
          reference: run.referenceText,
          companyId,
          replace: run.replace,
          progress: bar.progress,
          confirm: async (changes) => {
            listChanges(changes, run.allowed);
            if (!unallowed(changes, run.allowed).length) return true;
            return run.interactive && (await askToGoOn());
          },
        },
      ).finally(bar.done);
      const ms = Date.now() - started;
      // By SQL: the in-memory index a report would build is not needed by a process that exits now.
      const companies = await importedCompanies(store, importedCompanyIds(run.referenceText, companyId));
      const serviceUrl = await runningServiceUrl(config);
      printSummary({ loaded, companies, into: `the ${store.kind} store`, ms, serviceUrl }, config);
      return 0;
    } catch (err) {
      if (err instanceof ImportNotConfirmed)
        return refused(run, new ImportNotConfirmed(unallowed(err.changes, run.allowed)));
      if (err instanceof CsvImportError) return refused(run, err);
      throw err;
    }
  }).catch(async (error: unknown) => {
    if (opened) throw error;
    const handed = await importThroughRunningServer(error, run);
    if (handed === undefined) throw error;
    return handed;
  });
}

await runCli(main);
