/**
 * How a command-line tool ends on a failure: one sentence that names the cause and the fix, a non-zero exit code,
 * and no stack trace unless DEBUG=1 (then the stack follows the sentence). A `CliError` carries its own sentence and
 * exit code; a system error (a missing file, a refused connection) is put into words here; anything else is shown by
 * its message, which the store and the import already write as sentences.
 */

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** Bad arguments: exit code 2, as the usage lines did. */
export const usageError = (message: string) => new CliError(message, 2);

type SystemError = Error & { code?: string; path?: string; address?: string; port?: number; cause?: unknown };

/** What a user reads for a system error, by its code; `undefined` for an error that has no code we know. */
const SYSTEM_ERRORS: Record<string, (e: SystemError) => string> = {
  ENOENT: (e) => `${e.path ?? 'a file'} does not exist: check the path (relative paths start at ${process.cwd()}).`,
  ENOTDIR: (e) => `${e.path ?? 'the path'} cannot be reached: a part of it is a file, not a directory; choose another path (DATA_DIR for the store).`,
  EISDIR: (e) => `${e.path ?? 'the path'} is a directory: name a file.`,
  EACCES: (e) => `${e.path ?? 'a file'} cannot be opened (permission denied): run as a user who may read/write it, or choose another path.`,
  EPERM: (e) => `${e.path ?? 'a file'} cannot be opened (operation not permitted): run as a user who may, or choose another path.`,
  EROFS: (e) => `${e.path ?? 'the path'} is on a read-only file system: choose a writable DATA_DIR.`,
  ECONNREFUSED: (e) => `Nothing answers at ${e.address ?? 'the address'}${e.port ? `:${e.port}` : ''} (connection refused): start the server or check the URL.`,
  ENOTFOUND: () => 'The host name does not resolve: check the URL.',
};

/** The one sentence for any error a tool's main threw. */
export function failureSentence(error: unknown): string {
  if (error instanceof CliError) return error.message;
  const e = error as SystemError;
  const explain = e && typeof e === 'object' && e.code ? SYSTEM_ERRORS[e.code] : undefined;
  if (explain) return explain(e);
  // fetch wraps the socket's error in its cause.
  if (e instanceof TypeError && e.message === 'fetch failed' && e.cause) return failureSentence(e.cause);
  return error instanceof Error ? error.message : String(error);
}

export function exitCodeOf(error: unknown): number {
  return error instanceof CliError ? error.exitCode : 1;
}

export const debugEnabled = (): boolean => /^(1|true|yes|on)$/i.test(process.env.DEBUG ?? '');
