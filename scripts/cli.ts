/** What the command-line tools share: the configured store, and one way to end (exit code, plain message). */
import { existsSync } from 'node:fs';
import { loadConfig, type AppConfig } from '../src/config.ts';
import { keyAdminClient, keyAdminOf, keyAdminSocketPath, type KeyAdminStore } from '../src/ops/key-admin-socket.ts';
import type { LedgerStore } from '../src/store/ledger-store.ts';
import { openStore } from '../src/store/open-store.ts';

/** The store the server would use (DATABASE_URL, else DATA_DIR's DuckDB file), closed when `use` is done. */
export async function withConfiguredStore(use: (store: LedgerStore, config: AppConfig) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await use(store, config);
  } finally {
    await store.close({ beforeExit: true });
  }
}

/**
 * The store's key operations: the store itself, or, when a running server holds the DuckDB file, that server's
 * store through its key-administration socket (so a revocation takes effect at once, without a restart).
 */
export async function withKeyStore(use: (store: KeyAdminStore, config: AppConfig) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const socket = keyAdminSocketPath(config.dataDir);
  let store: LedgerStore;
  try {
    store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (config.databaseUrl || !existsSync(socket) || !/in use by another process/.test(String(error))) throw error;
    return use(keyAdminClient(socket), config);
  }
  try {
    return await use(keyAdminOf(store), config);
  } finally {
    await store.close({ beforeExit: true });
  }
}

/** Runs a command's main and sets the exit code; an unexpected error is printed as its message alone. */
export async function runCli(main: () => Promise<number>): Promise<void> {
  process.exitCode = await main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  });
}
