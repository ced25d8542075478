/** Classifies node-postgres errors: which ones mean "the database is unreachable" (→ StoreUnavailableError). */
import { StoreUnavailableError } from '../ledger/errors.ts';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);
// SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300 (too many
// connections).
const SQLSTATE = /^(08...|57P0[123]|53300)$/;
const MESSAGES = new RegExp(
  [
    'connection terminated',
    'terminating connection',
    'connection timeout',
    'timeout exceeded when trying to connect',
    'server closed the connection',
    'Client has encountered a connection error',
    'Connection refused',
    'the database system is (starting up|shutting down)',
  ].join('|'),
  'i',
);

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (err instanceof AggregateError && err.errors.some(isUnavailable)) return true;
  return MESSAGES.test(err.message);
}

/** Rethrows connection-level failures as StoreUnavailableError; anything else unchanged. */
export function mapPgError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isUnavailable(err)) return err;
  return new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err });
}
