/**
 * API key administration while a server holds the embedded store. A DuckDB file has one writer process: with the
 * server running, `npm run keys` cannot open it, so a revocation had to wait for a restart (and the server kept
 * accepting the key). The server therefore listens on a Unix socket beside the file (`<DATA_DIR>/keys.sock`, mode
 * 0600: only the file's owner may connect, as only the owner may open the file), and the keys CLI sends its command
 * there; the server runs it on its own store, so a revocation takes effect at once.
 *
 * Protocol: one JSON line `{"op": "revokeApiKey", "args": [...]}` → one JSON line `{"ok": result}` or `{"error": msg}`.
 * Only the four key-administration operations of the store are reachable.
 */
import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { ApiKeyRecord, LedgerStore } from '../store/ledger-store.ts';

export type KeyAdminStore = Pick<LedgerStore, 'listCompanies' | 'createApiKey' | 'revokeApiKey' | 'listApiKeys'>;
type Op = keyof KeyAdminStore;
const OPS: readonly Op[] = ['listCompanies', 'createApiKey', 'revokeApiKey', 'listApiKeys'];
/** Longest request line read (a create names a few companies). */
const MAX_REQUEST_BYTES = 64 * 1024;

export function keyAdminSocketPath(dataDir: string): string {
  return join(dataDir, 'keys.sock');
}

export async function listenKeyAdmin(path: string, store: KeyAdminStore): Promise<Server> {
  rmSync(path, { force: true }); // a socket file left by a process that was killed
  const server = createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) return void socket.destroy();
      const end = buffered.indexOf('\n');
      if (end === -1) return;
      socket.pause();
      void answer(buffered.slice(0, end), store).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

async function answer(line: string, store: KeyAdminStore): Promise<{ ok: unknown } | { error: string }> {
  try {
    const { op, args } = JSON.parse(line) as { op: Op; args: unknown[] };
    if (!OPS.includes(op) || !Array.isArray(args)) return { error: `unknown operation ${String(op)}` };
    const run = store[op] as (...a: unknown[]) => Promise<unknown>;
    return { ok: await run.apply(store, args) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function revive(record: ApiKeyRecord): ApiKeyRecord {
  return { ...record, createdAt: new Date(record.createdAt), revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt) };
}

function call(path: string, op: Op, args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        const parsed = JSON.parse(reply) as { ok?: unknown; error?: string };
        if (parsed.error !== undefined) reject(new Error(parsed.error));
        else resolve(parsed.ok);
      } catch (error) {
        reject(error);
      }
    });
    socket.write(`${JSON.stringify({ op, args })}\n`);
  });
}

/** The key operations of the store a running server holds, through its socket. */
export function keyAdminClient(path: string): KeyAdminStore {
  return {
    listCompanies: () => call(path, 'listCompanies', []) as ReturnType<KeyAdminStore['listCompanies']>,
    createApiKey: async (key) => revive((await call(path, 'createApiKey', [key])) as ApiKeyRecord),
    revokeApiKey: (id) => call(path, 'revokeApiKey', [id]) as Promise<boolean>,
    listApiKeys: async () => ((await call(path, 'listApiKeys', [])) as ApiKeyRecord[]).map(revive),
  };
}
