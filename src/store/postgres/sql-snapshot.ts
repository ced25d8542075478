/**
 * A report's reads by SQL (a company whose sums memory cannot hold exactly) in one REPEATABLE READ READ ONLY
 * transaction: every statement sees the snapshot of its first one, so the catalog, the ledger's version and the sums
 * agree even while an import commits. An aborted signal cancels the running statement (pg_cancel_backend of the
 * connection's backend, asked for by pg_backend_pid, through the pool) and ends the transaction.
 */
import type pg from 'pg';
import type { LedgerView, ReadOptions } from '../ledger/reader.ts';
import { readCatalog } from '../sql/catalog-sql.ts';
import { sumPnl } from '../sql/pnl-sql.ts';
import { companyChange } from './change-log-sql.ts';
import { session } from './session.ts';

export async function readInSnapshot<T>(
  client: pg.PoolClient,
  /** Where the cancel is sent from (the client's own pool). */
  pool: pg.Pool,
  read: (view: LedgerView) => Promise<T>,
  { signal }: ReadOptions,
  /** Told of each sum read (the store's count for /metrics). */
  summed: () => void,
): Promise<T> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let cancel: (() => void) | undefined;
  try {
    const [backend] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    cancel = () => void pool.query('SELECT pg_cancel_backend($1)', [backend!.pid]).catch(() => undefined);
    signal?.addEventListener('abort', cancel, { once: true });
    const s = session(client);
    const checked = <R>(work: () => Promise<R>) => {
      signal?.throwIfAborted();
      return work().finally(() => signal?.throwIfAborted());
    };
    const result = await read({
      getCatalog: (companyId) => checked(() => readCatalog(s, companyId)),
      sumPnlByAccountMonth: (query) => {
        summed();
        return checked(() => sumPnl(s, query));
      },
      ledgerVersion: async (companyId) => `postgres:${await checked(() => companyChange(s, companyId))}`,
    });
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw signal?.aborted ? signal.reason : err;
  } finally {
    if (cancel) signal?.removeEventListener('abort', cancel);
  }
}
