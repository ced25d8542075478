/**
 * How a command-line tool ends on a failure: one sentence that names the cause and the fix
 * (src/ops/failure-sentence.ts), a non-zero exit code, and no stack trace unless DEBUG=1. A `CliError` carries its
 * own sentence and exit code. Shared by the CLIs in scripts/ and the migration tools (packages/migration-tools).
 */
import { debugEnabled, failureSentence as systemFailureSentence } from './failure-sentence.ts';

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Bad arguments: exit code 2, as the usage lines did. */
export const usageError = (message: string) => new CliError(message, 2);

export function failureSentence(error: unknown): string {
  return error instanceof CliError ? error.message : systemFailureSentence(error);
}

export function exitCodeOf(error: unknown): number {
  return error instanceof CliError ? error.exitCode : 1;
}

/**
 * Runs a command's main and exits with its code. A failure is one sentence, with the stack only under DEBUG=1; the
 * process then exits at once, whatever handle (a half-opened store, a socket) is still open.
 */
export async function runCli(main: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    console.error(failureSentence(error));
    if (debugEnabled() && error instanceof Error) console.error(error.stack);
    process.exit(exitCodeOf(error));
  }
}
