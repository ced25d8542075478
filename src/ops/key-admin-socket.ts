/**
 * Key administration and imports while a server holds the embedded store: a DuckDB file has one writer process, so
 * `npm run keys` and `npm run import` send their command to the server over a Unix socket beside the file
 * (`<DATA_DIR>/keys.sock`, mode 0600: only the file's owner may connect) and the server runs it on its own store, a
 * revocation taking effect at once. The protocol is described at listenKeyAdmin.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { issueApiKey } from '../auth/api-keys.ts';
import type { ApiKeyRecord } from '../store/ledger/api-keys.ts';
import type { ImportProgress } from '../store/ledger/writer.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { importLedgerFiles, type ImportFilesReply, type ImportFilesRequest } from '../store/import/csv-import.ts';
import { unallowed, type AllowedChanges, type ImportChange } from '../store/import/import-changes.ts';
import { importedCompanies, type ImportedCompany } from './import-summary.ts';
import { lineReader } from './request-lines.ts';

/** What the keys CLI does: on the store itself (keyAdminOf) or through a running server's socket (keyAdminClient). */
export interface KeyAdminStore {
  listCompanies: LedgerStore['listCompanies'];
  listApiKeys: LedgerStore['listApiKeys'];
  revokeApiKey: LedgerStore['revokeApiKey'];
  issueApiKey(request: { name: string; companyIds: number[] }): Promise<{ key: string; record: ApiKeyRecord }>;
  /** The company's first and last day with figures (for a curl line whose range covers them). */
  pnlSpan: LedgerStore['pnlSpan'];
}
type Op = keyof KeyAdminStore;
const OPS: readonly Op[] = ['listCompanies', 'issueApiKey', 'revokeApiKey', 'listApiKeys', 'pnlSpan'];
const IMPORT_OP = 'importCsv';
/** Every operation the socket answers. */
type SocketOp = Op | 'serviceUrl' | typeof IMPORT_OP;
type AdminStore = Pick<LedgerStore, 'listCompanies' | 'createApiKey' | 'revokeApiKey' | 'listApiKeys' | 'pnlSpan'>;
/** What an import through the socket needs of the server's store. */
type ImportStore = Pick<LedgerStore, 'loadJournal' | 'storedCatalog'>;

const positiveId = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id > 0;

/** The key operations on a store, each checking what it is given (the socket passes another process's arguments). */
export function keyAdminOf(store: AdminStore): KeyAdminStore {
  return {
    listCompanies: () => store.listCompanies(),
    listApiKeys: () => store.listApiKeys(),
    issueApiKey: (request) => issueApiKey(store, request),
    revokeApiKey: (id: unknown) => {
      if (!positiveId(id))
        return Promise.reject(new Error(`a key id is a positive integer, got ${JSON.stringify(id)}`));
      return store.revokeApiKey(id);
    },
    pnlSpan: (id: unknown) => {
      if (!positiveId(id))
        return Promise.reject(new Error(`a company id is a positive integer, got ${JSON.stringify(id)}`));
      return store.pnlSpan(id);
    },
  };
}
/** The server's root URL once it listens (undefined before). */
export type ServiceUrl = () => string | undefined;
/**
 * How long a connection may take to send its request line, and may stay open once answered; past it the server closes
 * it (a client that connects and says nothing holds no connection for ever).
 */
const KEY_ADMIN_IDLE_MS = 30_000;
/** How long the server waits for the answer to a question (a person reading an import's changes at a terminal). */
const KEY_ADMIN_QUESTION_MS = 10 * 60_000;
/** Longest answer line a client reads (a list of every key). */
const MAX_ANSWER_CHARS = 16 * 1024 * 1024;

const FALLBACK_PREFIX = 'reporting-service-keys-';

/** Longest Unix socket path Linux takes (sun_path is 108 bytes with its terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** True when `directory` is a directory of this user that no one else may enter (not a link to one). */
function isPrivateDirectory(directory: string): boolean {
  const stat = lstatSync(directory);
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;
}

/** True when `directory` is missing, or private to this user. */
function missingOrPrivate(directory: string): boolean {
  try {
    return isPrivateDirectory(directory);
  } catch {
    return true;
  }
}

/**
 * `<DATA_DIR>/keys.sock`, or, when that path is too long for a Unix socket, `keys.sock` in a directory named by a hash
 * of DATA_DIR (`reporting-service-keys-<hash>/`, mode 0700, owned by the server's user): in the system's temp dir,
 * or, when another user made that one first, in this user's `~/.cache` (only this user can write there). The server
 * and the keys CLI compute the same path from the same DATA_DIR.
 */
export function keyAdminSocketPath(dataDir: string): string {
  const beside = join(dataDir, 'keys.sock');
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH_BYTES) return beside;
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  const temp = Buffer.byteLength(tmpdir()) <= 60 ? tmpdir() : '/tmp';
  const candidates = [temp, join(homedir(), '.cache')]
    .map((parent) => join(parent, `${FALLBACK_PREFIX}${hash}`))
    .filter((directory) => Buffer.byteLength(join(directory, 'keys.sock')) <= MAX_SOCKET_PATH_BYTES);
  return join(
    candidates.find(missingOrPrivate) ?? candidates[0] ?? join(temp, `${FALLBACK_PREFIX}${hash}`),
    'keys.sock',
  );
}

/**
 * The socket's directory when it is not DATA_DIR: created 0700, and refused when another user owns it or can enter it.
 */
function ensurePrivateDirectory(path: string): void {
  const directory = dirname(path);
  if (!basename(directory).startsWith(FALLBACK_PREFIX)) return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (!isPrivateDirectory(directory)) {
    throw new Error(
      `${directory} must be a directory of this user with mode 0700 to hold the key administration socket`,
    );
  }
}

/** True when a server listens on the socket (one that is gone leaves a file nobody answers). */
export function keyAdminAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** How a connection talks back while it is answered: lines before the result, and a question awaiting its answer. */
interface Conversation {
  send(message: object): void;
  ask(message: object): Promise<unknown>;
}

/**
 * Listens on `path`. Protocol: one JSON line `{"op": "revokeApiKey", "args": [...]}` → one JSON line `{"ok": result}`
 * or `{"error": msg}`. Reachable: the key operations (OPS; each checks its arguments: a new key is made by the server
 * for companies that exist, a revocation names a positive id), `serviceUrl` (where the server answers, for the curl
 * lines the CLIs print) and `importCsv` (the server reads the files whose absolute paths it is sent and loads them,
 * sending `{"progress": ...}` and `{"changes": ...}` lines meanwhile and asking `{"confirm": changes}`, which the CLI
 * answers `{"confirmed": bool}`). With `urlOnly` (a server over PostgreSQL, whose tools open the database themselves)
 * it answers only `serviceUrl`. A request not sent within `idleMs`, an answer to a question not sent within
 * `questionMs`, and a connection left open `idleMs` after its answer are closed.
 */
export async function listenKeyAdmin(
  path: string,
  ledger: AdminStore & ImportStore,
  serviceUrl: ServiceUrl = () => undefined,
  {
    urlOnly = false,
    idleMs = KEY_ADMIN_IDLE_MS,
    questionMs = KEY_ADMIN_QUESTION_MS,
  }: { urlOnly?: boolean; idleMs?: number; questionMs?: number } = {},
): Promise<Server> {
  const store = keyAdminOf(ledger);
  ensurePrivateDirectory(path);
  rmSync(path, { force: true }); // a socket file left by a process that was killed
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    const nextLine = lineReader(socket);
    const conversation: Conversation = {
      send: (message) => void socket.write(`${JSON.stringify(message)}\n`),
      ask: async (message) => {
        socket.write(`${JSON.stringify(message)}\n`);
        return JSON.parse(await nextLine(questionMs)) as unknown;
      },
    };
    void nextLine(idleMs)
      .then((line) => answer(line, { store, serviceUrl, ledger, conversation, urlOnly }))
      .then(
        (reply) => socket.setTimeout(idleMs, () => socket.destroy()).end(`${JSON.stringify(reply)}\n`),
        () => socket.destroy(),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

/** What a connection's request is answered with. */
interface Answering {
  store: KeyAdminStore;
  serviceUrl: ServiceUrl;
  ledger: AdminStore & ImportStore;
  conversation: Conversation;
  urlOnly: boolean;
}

async function answer(
  line: string,
  { store, serviceUrl, ledger, conversation, urlOnly }: Answering,
): Promise<{ ok: unknown } | { error: string }> {
  try {
    const { op, args } = JSON.parse(line) as { op: SocketOp; args: unknown[] };
    if (op === 'serviceUrl') return { ok: serviceUrl() ?? null };
    if (urlOnly)
      return { error: 'this server tells only where it answers (serviceUrl); open its database with DATABASE_URL' };
    if (op === IMPORT_OP) return { ok: await importAnswer(ledger, importRequest(args), conversation) };
    if (!OPS.includes(op) || !Array.isArray(args)) return { error: `unknown operation ${String(op)}` };
    const run = store[op] as (...a: unknown[]) => Promise<unknown>;
    return { ok: await run.apply(store, args) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The server's answer to an import: progress lines meanwhile, a question when a change needs confirming. */
export type ImportAnswer =
  | { loaded: number; companies: ImportedCompany[] }
  | Exclude<ImportFilesReply, { loaded: number }>;

async function importAnswer(
  ledger: AdminStore & ImportStore,
  { ask, ...request }: ImportFilesRequest & { ask: boolean },
  conversation: Conversation,
): Promise<ImportAnswer> {
  const reply = await importLedgerFiles(ledger, request, {
    progress: (progress) => conversation.send({ progress }),
    confirm: async (changes) => {
      conversation.send({ changes });
      const open = unallowed(changes, request.allow ?? {});
      if (!open.length) return true;
      if (!ask) return false;
      const answer = (await conversation.ask({ confirm: open })) as { confirmed?: unknown };
      return answer.confirmed === true;
    },
  });
  if (!('loaded' in reply)) return reply;
  return { loaded: reply.loaded, companies: await importedCompanies(ledger, reply.companyIds) };
}

function revive(record: ApiKeyRecord): ApiKeyRecord {
  return {
    ...record,
    createdAt: new Date(record.createdAt),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
  };
}

/**
 * The import's arguments as another process sent them: absolute paths, an optional positive company, flags, the
 * kinds of change allowed, and whether the caller can be asked.
 */
function importRequest(args: unknown): ImportFilesRequest & { ask: boolean } {
  const [request] = Array.isArray(args) ? (args as unknown[]) : [];
  const { journal, reference, companyId, replace, allow, ask } = (request ?? {}) as Record<string, unknown>;
  const path = (p: unknown) => typeof p === 'string' && p.startsWith('/');
  const flags = (a: unknown) =>
    a === undefined ||
    (typeof a === 'object' &&
      a !== null &&
      Object.entries(a).every(([k, v]) => ['reference', 'entries'].includes(k) && typeof v === 'boolean'));
  if (
    !path(journal) ||
    (reference !== undefined && !path(reference)) ||
    (companyId !== undefined && !positiveId(companyId)) ||
    (replace !== undefined && typeof replace !== 'boolean') ||
    !flags(allow) ||
    (ask !== undefined && typeof ask !== 'boolean')
  ) {
    throw new Error(
      'importCsv takes { journal, reference?, companyId?, replace?, allow?, ask? }: ' +
        'absolute paths, a positive company id, booleans',
    );
  }
  return {
    journal: journal as string,
    reference: reference as string | undefined,
    companyId: companyId as number | undefined,
    replace: replace as boolean | undefined,
    allow: allow as AllowedChanges | undefined,
    ask: ask === true,
  };
}

/** What a client does with the lines the server sends before its result. */
interface Listener {
  progress?: (progress: ImportProgress) => void;
  /** Every change the import makes to existing data, before it asks or goes on. */
  changes?: (changes: ImportChange[]) => void;
  /** Asked about the changes the request's flags do not allow; without it the server refuses them. */
  confirm?: (changes: ImportChange[]) => Promise<boolean>;
}

function call(path: string, op: SocketOp, args: unknown[], listener: Listener = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffered = '';
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const onLine = (line: string) => {
      const parsed = JSON.parse(line) as {
        ok?: unknown;
        error?: string;
        progress?: ImportProgress;
        changes?: ImportChange[];
        confirm?: ImportChange[];
      };
      if (parsed.progress) return listener.progress?.(parsed.progress);
      if (parsed.changes) return listener.changes?.(parsed.changes);
      if (parsed.confirm) {
        const confirm = listener.confirm ?? (() => Promise.resolve(false));
        return void confirm(parsed.confirm).then((confirmed) => socket.write(`${JSON.stringify({ confirmed })}\n`));
      }
      settle(() => (parsed.error !== undefined ? reject(new Error(parsed.error)) : resolve(parsed.ok)));
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_ANSWER_CHARS) {
        settle(() => reject(new Error(`the server's answer on ${path} is longer than ${MAX_ANSWER_CHARS} characters`)));
        return void socket.destroy();
      }
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        try {
          onLine(line);
        } catch (error) {
          settle(() => reject(error));
        }
      }
    });
    socket.on('error', (error) => settle(() => reject(error)));
    socket.on('close', () =>
      settle(() => reject(new Error(`the server closed ${path} before it answered (did it stop?)`))),
    );
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
    pnlSpan: async (id) => ((await call(path, 'pnlSpan', [id])) as { first: string; last: string } | null) ?? undefined,
  };
}

/**
 * `npm run import` through a running server's socket: the server reads the files and loads them into its store,
 * telling `listener` its progress, and asking it to confirm changes to existing data the request does not allow.
 */
export function importThroughServer(
  path: string,
  request: ImportFilesRequest,
  listener: Listener = {},
): Promise<ImportAnswer> {
  return call(
    path,
    IMPORT_OP,
    [{ ...request, ask: listener.confirm !== undefined }],
    listener,
  ) as Promise<ImportAnswer>;
}
