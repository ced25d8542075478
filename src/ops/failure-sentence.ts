/**
 * The one sentence a user reads when a command or the server's start fails: a system error (a missing file, a busy
 * port, a refused connection) put into words that name the cause and the fix; any other error by its message, which
 * the store, the import and the config already write as sentences. The stack trace only under DEBUG=1.
 */

type SystemError = Error & {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
  /** A port that was free when the error was raised (a busy port's). */
  suggestedPort?: number;
  cause?: unknown;
};

/** What a user reads for a system error, by its code; `undefined` for an error that has no code we know. */
const SYSTEM_ERRORS: Record<string, (e: SystemError) => string> = {
  ENOENT: (e) => `${e.path ?? 'a file'} does not exist: check the path (relative paths start at ${process.cwd()}).`,
  ENOTDIR: (e) =>
    `${e.path ?? 'the path'} cannot be reached: a part of it is a file, not a directory; choose another path ` +
    `(DATA_DIR for the store).`,
  EISDIR: (e) => `${e.path ?? 'the path'} is a directory: name a file.`,
  EACCES: (e) =>
    e.syscall === 'listen'
      ? `Port ${e.port} (PORT) may not be opened by this user (ports below 1024 need privileges): choose a port ` +
        `above 1023, e.g. PORT=8080.`
      : `${e.path ?? 'a file'} cannot be opened (permission denied): run as a user who may read/write it, or ` +
        `choose another path.`,
  EPERM: (e) =>
    `${e.path ?? 'a file'} cannot be opened (operation not permitted): run as a user who may, or choose another path.`,
  EROFS: (e) => `${e.path ?? 'the path'} is on a read-only file system: choose a writable DATA_DIR.`,
  EADDRINUSE: (e) =>
    `Port ${e.port} (PORT) is already in use${e.address ? ` on ${e.address}` : ''}: stop the process that holds ` +
    `it, or start on another port, e.g. PORT=${e.suggestedPort ?? (e.port ?? 8080) + 1} npm ` +
    `start${e.suggestedPort ? ` (${e.suggestedPort} is free)` : ''}.`,
  EADDRNOTAVAIL: (e) =>
    `${e.address} (HOST) is not an address of this machine: set HOST to one of its addresses, e.g. HOST=127.0.0.1.`,
  ECONNREFUSED: (e) =>
    `Nothing answers at ${e.address ?? 'the address'}${e.port ? `:${e.port}` : ''} (connection refused): start ` +
    `the server or check the URL.`,
  ENOTFOUND: () => 'The host name does not resolve: check the URL.',
};

/** The one sentence for an error a command or the start threw. */
export function failureSentence(error: unknown): string {
  const e = error as SystemError;
  const explain = e && typeof e === 'object' && e.code ? SYSTEM_ERRORS[e.code] : undefined;
  if (explain) return explain(e);
  // fetch wraps the socket's error in its cause.
  if (e instanceof TypeError && e.message === 'fetch failed' && e.cause) return failureSentence(e.cause);
  return error instanceof Error ? error.message : String(error);
}

export const debugEnabled = (): boolean => /^(1|true|yes|on)$/i.test(process.env.DEBUG ?? '');
