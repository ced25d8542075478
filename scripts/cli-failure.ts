/**
 * How a command-line tool ends on a failure: one sentence that names the cause and the fix
 * (src/ops/failure-sentence.ts),
 * a non-zero exit code, and no stack trace unless DEBUG=1. A `CliError` carries its own sentence and exit code.
 */
import { failureSentence as systemFailureSentence } from '../src/ops/failure-sentence.ts';

export { debugEnabled } from '../src/ops/failure-sentence.ts';

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
