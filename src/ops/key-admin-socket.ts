/**
 * API key administration while a server holds the embedded store. A DuckDB file has one writer process: with the
 * server running, `npm run keys` cannot open it, so a revocation had to wait for a restart (and the server kept
 * accepting the key). The server therefore listens on a Unix socket beside the file (`<DATA_DIR>/keys.sock`, mode
 * 0600: only the file's owner may connect, as only the owner may open the file), and the keys CLI sends its command
 * there; the server runs it on its own store, so a revocation takes effect at once.
 *
 * Protocol: one JSON line `{"op": "revokeApiKey", "args": [...]}` → one JSON line `{"ok": result}` or `{"error": msg}`.
 * Only the four key-administration operations are reachable, each checking its arguments: a new key is made by the
 * server (issueApiKey: the caller never chooses its hash) for companies that exist; a revocation names a positive
 * integer id. And `serviceUrl`: where the server answers (so the curl line `npm run keys -- create` prints
 * names the port the server really listens on). And `importCsv`: `npm run import` hands the server the paths of its
 * files, which the server reads and loads into its own store (readers keep seeing the old figures until the import
 * commits, then the new ones).
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { issueApiKey } from '../auth/api-keys.ts';
import type { ApiKeyRecord, LedgerStore } from '../store/ledger/ledger-store.ts';
import { importLedgerFiles, type ImportFilesReply, type ImportFilesRequest } from '../store/import/csv-import.ts';

/** What the keys CLI does: on the store itself (keyAdminOf) or through a running server's socket (keyAdminClient). */
export interface KeyAdminStore {
  listCompanies: LedgerStore['listCompanies'];
  listApiKeys: LedgerStore['listApiKeys'];
  revokeApiKey: LedgerStore['revokeApiKey'];
  issueApiKey(request: { name: string; companyIds: number[] }): Promise<{ key: string; record: ApiKeyRecord }>;
}
type Op = keyof KeyAdminStore;
const OPS: readonly Op[] = ['listCompanies', 'issueApiKey', 'revokeApiKey', 'listApiKeys'];
type AdminStore = Pick<LedgerStore, 'listCompanies' | 'createApiKey' | 'revokeApiKey' | 'listApiKeys'>;

/** The key operations on a store, each checking what it is given (the socket passes another process's arguments). */
export function keyAdminOf(store: AdminStore): KeyAdminStore {
  return {
    listCompanies: () => store.listCompanies(),
    listApiKeys: () => store.listApiKeys(),
    issueApiKey: (request) => issueApiKey(store, request),
    revokeApiKey: (id: unknown) => {
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0)
        return Promise.reject(new Error(`a key id is a positive integer, got ${JSON.stringify(id)}`));
      return store.revokeApiKey(id);
    },
  };
}
/** The server's root URL once it listens (undefined before). */
export type ServiceUrl = () => string | undefined;
/** Longest request line read (a create names a few companies). */
const MAX_REQUEST_BYTES = 64 * 1024;

const FALLBACK_PREFIX = 'reporting-service-keys-';

/** Longest Unix socket path Linux takes (sun_path is 108 bytes with its terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * `<DATA_DIR>/keys.sock`, or, when that path is too long for a Unix socket, `keys.sock` in a directory of the
 * system's temp dir named by a hash of DATA_DIR (`/tmp/reporting-service-keys-<hash>/`, mode 0700, owned by the
 * server's user): the server and the keys CLI compute the same path from the same DATA_DIR.
 */
export function keyAdminSocketPath(dataDir: string): string {
  const beside = join(dataDir, 'keys.sock');
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH_BYTES) return beside;
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  const temp = Buffer.byteLength(tmpdir()) <= 60 ? tmpdir() : '/tmp';
  return join(temp, `${FALLBACK_PREFIX}${hash}`, 'keys.sock');
}

/**
 * The socket's directory when it is not DATA_DIR: created 0700, and refused when another user owns it or can enter it.
 */
function ensurePrivateDirectory(path: string): void {
  const directory = dirname(path);
  if (!basename(directory).startsWith(FALLBACK_PREFIX)) return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = lstatSync(directory);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) {
    throw new Error(
      `${directory} must be a directory of this user with mode 0700 to hold the key administration socket`,
    );
  }
}

export async function listenKeyAdmin(
  path: string,
  ledger: AdminStore & Pick<LedgerStore, 'loadJournal'>,
  serviceUrl: ServiceUrl = () => undefined,
): Promise<Server> {
  const store = keyAdminOf(ledger);
  ensurePrivateDirectory(path);
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
      void answer(buffered.slice(0, end), store, serviceUrl, ledger).then((reply) =>
        socket.end(`${JSON.stringify(reply)}\n`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

async function answer(
  line: string,
  store: KeyAdminStore,
  serviceUrl: ServiceUrl,
  ledger: Pick<LedgerStore, 'loadJournal'>,
): Promise<{ ok: unknown } | { error: string }> {
  try {
    const { op, args } = JSON.parse(line) as { op: Op | 'serviceUrl' | typeof IMPORT_OP; args: unknown[] };
    if (op === IMPORT_OP) return { ok: await importLedgerFiles(ledger, importRequest(args)) };
    if (op === 'serviceUrl') return { ok: serviceUrl() ?? null };
    if (!OPS.includes(op) || !Array.isArray(args)) return { error: `unknown operation ${String(op)}` };
    const run = store[op] as (...a: unknown[]) => Promise<unknown>;
    return { ok: await run.apply(store, args) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function revive(record: ApiKeyRecord): ApiKeyRecord {
  return {
    ...record,
    createdAt: new Date(record.createdAt),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
  };
}

const IMPORT_OP = 'importCsv';

/** The import's arguments as another process sent them: absolute paths, an optional positive company, a flag. */
function importRequest(args: unknown): ImportFilesRequest {
  const [request] = Array.isArray(args) ? (args as unknown[]) : [];
  const { journal, reference, companyId, replace } = (request ?? {}) as Record<string, unknown>;
  const path = (p: unknown) => typeof p === 'string' && p.startsWith('/');
  if (
    !path(journal) ||
    (reference !== undefined && !path(reference)) ||
    (companyId !== undefined && !(Number.isSafeInteger(companyId) && (companyId as number) > 0)) ||
    (replace !== undefined && typeof replace !== 'boolean')
  ) {
    throw new Error(
      'importCsv takes { journal, reference?, companyId?, replace? }: absolute paths, a positive company id, a boolean',
    );
  }
  return {
    journal: journal as string,
    reference: reference as string | undefined,
    companyId: companyId as number | undefined,
    replace: replace as boolean | undefined,
  };
}

function call(path: string, op: Op | 'serviceUrl' | typeof IMPORT_OP, args: unknown[]): Promise<unknown> {
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

/** The key operations of the store a running server holds, through its socket, and where that server answers. */
export function keyAdminClient(path: string): KeyAdminStore & { serviceUrl(): Promise<string | undefined> } {
  return {
    serviceUrl: async () => ((await call(path, 'serviceUrl', [])) as string | null) ?? undefined,
    listCompanies: () => call(path, 'listCompanies', []) as ReturnType<KeyAdminStore['listCompanies']>,
    issueApiKey: async (request) => {
      const issued = (await call(path, 'issueApiKey', [request])) as { key: string; record: ApiKeyRecord };
      return { key: issued.key, record: revive(issued.record) };
    },
    revokeApiKey: (id) => call(path, 'revokeApiKey', [id]) as Promise<boolean>,
    listApiKeys: async () => ((await call(path, 'listApiKeys', [])) as ApiKeyRecord[]).map(revive),
  };
}

/** `npm run import` through a running server's socket: the server reads the files and loads them into its store. */
export function importThroughServer(path: string, request: ImportFilesRequest): Promise<ImportFilesReply> {
  return call(path, IMPORT_OP, [request]) as Promise<ImportFilesReply>;
}
