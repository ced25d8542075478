/**
 * The report benchmark's ledger in both stores, kept under os.tmpdir()/reporting-bench between runs: the PostgreSQL
 * cluster's data directory (started again on a free port) and the DuckDB file, each loaded as a user loads one (`npm
 * run import` of the seeded random ledger's CSV files, ledger-csv.ts). Kept by seed, size and a hash of the sources
 * that decide what the stored ledger holds (the generator, its CSV writer, the schema); the benchmark's scan anchor
 * checks every report's sums, so a stale or wrong cache shows as "cells differ". A 10M-entry ledger takes minutes to
 * import: once.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.ts';
import { startPostgresServer, type PostgresServer } from '../lib/postgres-server.ts';
import type { RandomLedgerOptions } from '../lib/random-ledger.ts';
import { ensureLedgerCsv } from './ledger-csv.ts';
import { runScript } from './run-script.ts';
import { secs } from './stats.ts';

/** Where the benchmarks keep what they build once (ledgers, CSV files) between runs. */
export const BENCH_DIR = join(tmpdir(), 'reporting-bench');

function cacheName(store: string, ledger: RandomLedgerOptions): string {
  const h = createHash('sha1').update(JSON.stringify(ledger));
  for (const f of ['scripts/lib/random-ledger.ts', 'scripts/bench/ledger-csv.ts', 'src/store/sql/schema.ts'])
    h.update(readFileSync(join(REPO_ROOT, f)));
  return join(BENCH_DIR, `${store}-s${ledger.seed}-n${ledger.entries}-${h.digest('hex').slice(0, 10)}`);
}

/** `npm run import` of the ledger's CSV files (scripts/import.ts through tsx) into the store `env` names. */
async function importLedger(ledger: RandomLedgerOptions, env: Record<string, string>): Promise<number> {
  const csv = await ensureLedgerCsv(join(BENCH_DIR, `report-s${ledger.seed}-n${ledger.entries}`), ledger);
  const run = await runScript('scripts/import.ts', [csv.journal, '--reference', csv.reference], env);
  if (!run.output.includes(`loaded ${ledger.entries} entries`))
    throw new Error(`npm run import did not load every entry:\n${run.output.slice(-2000)}`);
  return run.ms;
}

interface Marker {
  importMs: number;
}
const readMarker = (file: string) => JSON.parse(readFileSync(`${file}.ok`, 'utf8')) as Marker;

/**
 * A PostgreSQL server over the cached cluster holding the ledger (imported first when there is none); destroy() keeps
 * it.
 */
export async function cachedPostgresLedger(
  ledger: RandomLedgerOptions,
  { rebuild = false } = {},
): Promise<{ server: PostgresServer; url: string; note: string }> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const data = cacheName('pg', ledger);
  const built = !rebuild && existsSync(`${data}.ok`);
  if (!built) for (const f of [`${data}.ok`, data]) rmSync(f, { recursive: true, force: true });
  const server = await startPostgresServer('ledger', { keepData: data });
  try {
    if (built)
      return {
        server,
        url: server.url,
        note: `PostgreSQL ledger reused (imported in ${secs(readMarker(data).importMs)}; ${data})`,
      };
    const importMs = await importLedger(ledger, { DATABASE_URL: server.url });
    writeFileSync(`${data}.ok`, JSON.stringify({ importMs } satisfies Marker));
    return {
      server,
      url: server.url,
      note: `PostgreSQL ledger imported by npm run import in ${secs(importMs)} (kept: ${data})`,
    };
  } catch (err) {
    await server.destroy();
    throw err;
  }
}

/** The cached DuckDB file holding the ledger (loaded first when there is none). */
export async function cachedDuckDbLedger(
  ledger: RandomLedgerOptions,
  { rebuild = false } = {},
): Promise<{ path: string; note: string }> {
  const dir = cacheName('duckdb', ledger);
  const path = join(dir, 'ledger.duckdb');
  const size = () => `${(statSync(path).size / 1e6).toFixed(0)} MB`;
  if (!rebuild && existsSync(`${dir}.ok`))
    return { path, note: `DuckDB file reused: ${size()}, loaded in ${secs(readMarker(dir).importMs)} (${path})` };
  for (const f of [`${dir}.ok`, dir]) rmSync(f, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const importMs = await importLedger(ledger, { DATA_DIR: dir, DATABASE_URL: '' });
  writeFileSync(`${dir}.ok`, JSON.stringify({ importMs } satisfies Marker));
  return { path, note: `DuckDB file imported by npm run import in ${secs(importMs)}: ${size()} (${path})` };
}
