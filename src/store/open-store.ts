/**
 * Chooses and opens the ledger store from configuration: DATABASE_URL → PostgreSQL, else a DuckDB file. Runs migrate().
 */
import { join } from 'node:path';
import type { LedgerStore } from './ledger/ledger-store.ts';
import { privateDataDirectory, privateLedgerFiles } from './duckdb/private-files.ts';

export interface StoreConfig {
  databaseUrl?: string;
  /** DATABASE_READ_URL: reports read from this PostgreSQL standby, the rest from DATABASE_URL. */
  databaseReadUrl?: string;
  dataDir: string;
  /** Overrides `<dataDir>/ledger.duckdb`; ':memory:' for tests. */
  duckdbPath?: string;
  /** The in-memory indexes' budget (INDEX_MEMORY_MB); unset = index-budget.ts's default for the machine. */
  indexMemoryMb?: number;
  /** What the process may hold beyond that budget before the indexes give way (INDEX_RSS_HEADROOM_MB; 0 = no limit). */
  indexRssHeadroomMb?: number;
  /** DuckDB's memory while serving (STORE_MEMORY_MB); unset = settings.ts's default. */
  storeMemoryMb?: number;
}

export async function openStore(config: StoreConfig): Promise<LedgerStore> {
  let store: LedgerStore;
  const indexMemoryBytes = config.indexMemoryMb === undefined ? undefined : config.indexMemoryMb * 2 ** 20;
  const rssHeadroomBytes = config.indexRssHeadroomMb === undefined ? undefined : config.indexRssHeadroomMb * 2 ** 20;
  if (config.databaseUrl) {
    // Each adapter's driver is loaded only when chosen (start-up time).
    const { PostgresLedgerStore } = await import('./postgres/postgres-store.ts');
    store = new PostgresLedgerStore(config.databaseUrl, {
      indexMemoryBytes,
      rssHeadroomBytes,
      readUrl: config.databaseReadUrl,
    });
  } else {
    const path = config.duckdbPath ?? join(config.dataDir, 'ledger.duckdb');
    if (path !== ':memory:' && !config.duckdbPath) privateDataDirectory(config.dataDir);
    const { DuckDbLedgerStore } = await import('./duckdb/duckdb-store.ts');
    store = await DuckDbLedgerStore.open(path, {
      indexMemoryBytes,
      rssHeadroomBytes,
      memoryMb: config.storeMemoryMb,
    }).catch((error: unknown) => {
      // DuckDB lets one process at a time open a file for writing: say so plainly.
      if (error instanceof Error && /Could not set lock/i.test(error.message)) {
        throw new Error(
          `The ledger file ${path} is in use by another process (a running server?). Stop it first, or use ` +
            `PostgreSQL (DATABASE_URL) to share one ledger between processes.`,
          { cause: error },
        );
      }
      throw error;
    });
    if (path !== ':memory:') privateLedgerFiles(path);
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}
