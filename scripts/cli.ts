/** What the command-line tools share: the configured store (how they end: src/ops/cli-failure.ts). */
import { existsSync } from 'node:fs';
import { loadConfig, type AppConfig } from '../src/config.ts';
import { keyAdminClient, keyAdminOf, keyAdminSocketPath, type KeyAdminStore } from '../src/ops/key-admin-socket.ts';
import type { LedgerStore } from '../src/store/ledger/ledger-store.ts';
import { openStore } from '../src/store/open-store.ts';

/** The store the server would use (DATABASE_URL, else DATA_DIR's DuckDB file), closed when `use` is done. */
export async function withConfiguredStore(
  use: (store: LedgerStore, config: AppConfig) => Promise<number>,
): Promise<number> {
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
 * store through its key-administration socket (so a revocation takes effect at once, without a restart). `serviceUrl`
 * is where the service answers: the running server's own URL when it is the one asked, else the configured one.
 */
export async function withKeyStore(
  use: (store: KeyAdminStore, config: AppConfig, serviceUrl: string) => Promise<number>,
): Promise<number> {
  const config = loadConfig();
  const socket = keyAdminSocketPath(config.dataDir);
  let store: LedgerStore;
  try {
    store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (config.databaseUrl || !existsSync(socket) || !/in use by another process/.test(String(error))) throw error;
    const server = keyAdminClient(socket);
    return use(server, config, (await server.serviceUrl()) ?? configuredServiceUrl(config));
  }
  try {
    return await use(keyAdminOf(store), config, await runningServiceUrl(config));
  } finally {
    await store.close({ beforeExit: true });
  }
}

/** How long a tool waits for a running server to say where it answers. */
const ASK_SERVER_MS = 2_000;

/**
 * Where the service answers: as the server running on this DATA_DIR says (its keys.sock; PUBLIC_BASE_URL, or its
 * port and BASE_PATH), else as a server started with this configuration would.
 */
export async function runningServiceUrl(config: AppConfig): Promise<string> {
  const socket = keyAdminSocketPath(config.dataDir);
  if (existsSync(socket)) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ASK_SERVER_MS)));
    const told = await Promise.race([keyAdminClient(socket).serviceUrl(), late]).catch(() => undefined);
    clearTimeout(timer);
    if (told) return told;
  }
  return configuredServiceUrl(config);
}

/** Where a server started with this configuration answers (PUBLIC_BASE_URL when set). */
export function configuredServiceUrl(config: AppConfig): string {
  if (config.publicBaseUrl) return config.publicBaseUrl.replace(/\/$/, '');
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  return `http://${host}:${config.port}${config.basePath ?? ''}`;
}
