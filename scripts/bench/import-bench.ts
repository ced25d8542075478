/**
 * Import section of bench-report.ts (issue 23, goal 3): `npm run import` of the seeded random ledger's CSV files into
 * a fresh store, against the engine's own time for the same work in the same run (engine-import-anchor.ts: read the
 * CSV, check every entry balances, monthly + daily sums), each in its own process so each peak RSS is its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresServer } from '../lib/postgres-server.ts';
import type { RandomLedgerOptions } from '../lib/random-ledger.ts';
import { BENCH_DIR } from './cached-ledger.ts';
import { ensureLedgerCsv } from './ledger-csv.ts';
import { runScript, type ScriptRun } from './run-script.ts';
import { fmtInt, fmtRatio, secs, table } from './stats.ts';

const engineMs = (r: ScriptRun) => Number(/engine-ms (\d+)/.exec(r.output)?.[1] ?? NaN);

/** Imports the ledger into each store and runs the engine anchor; returns the lines to print. */
export async function importSection(ledger: RandomLedgerOptions, stores: ('duckdb' | 'postgres')[]): Promise<string[]> {
  const csv = await ensureLedgerCsv(join(BENCH_DIR, `import-s${ledger.seed}-n${ledger.entries}`), ledger);
  const rows: string[][] = [
    ['store', 'npm run import', 'peak RSS', 'engine anchor', 'anchor peak RSS', 'import / anchor'],
  ];
  for (const store of stores) {
    const work = mkdtempSync(join(tmpdir(), 'import-bench-'));
    const pg = store === 'postgres' ? await startPostgresServer('bench_import') : undefined;
    try {
      const env = pg
        ? { DATABASE_URL: await pg.createDatabase('ours'), DATA_DIR: work }
        : { DATA_DIR: work, DATABASE_URL: '' };
      const ours = await runScript('scripts/import.ts', [csv.journal, '--reference', csv.reference], env);
      if (!new RegExp(`loaded ${ledger.entries} entries`).test(ours.output))
        throw new Error(`import did not load every entry:\n${ours.output}`);
      const anchor = await runScript('scripts/bench/engine-import-anchor.ts', [
        store,
        csv.journal,
        pg ? await pg.createDatabase('anchor') : join(work, 'anchor.duckdb'),
      ]);
      rows.push([
        store,
        secs(ours.ms),
        `${ours.peakMiB.toFixed(0)} MiB`,
        secs(engineMs(anchor)),
        `${anchor.peakMiB.toFixed(0)} MiB`,
        fmtRatio(ours.ms / engineMs(anchor)),
      ]);
    } finally {
      await pg?.destroy();
      rmSync(work, { recursive: true, force: true });
    }
  }
  return [
    `Import (goal 3: ≤ 2× the engine's own time, peak RSS ≤ 500 MB): ${fmtInt(ledger.entries)} entries, ` +
      `${(csv.bytes / 1e6).toFixed(0)} MB journal CSV (${csv.journal})`,
    table(rows),
    'npm run import: wall time of the CLI process (start, parse, load, commit, summary) and its peak RSS ' +
      '(DuckDB included).',
    'engine anchor: the same file read by the engine itself (DuckDB read_csv / PostgreSQL COPY) into a table, ' +
      "every entry's",
    '               balance checked, monthly and daily sums built; time of that work, peak RSS of its process.',
  ];
}
