/**
 * A report read in one SQL snapshot on PostgreSQL (src/store/postgres/sql-snapshot.ts): an aborted request cancels the
 * statement its connection is running on the server, and the read ends with the abort's reason, its transaction
 * rolled back, the connection left idle.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { readInSnapshot } from '../../../src/store/postgres/sql-snapshot.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

describe('PostgreSQL: a report read in one SQL snapshot', function () {
  this.timeout(120_000);
  if (skipPostgres) {
    it('is skipped because SKIP_POSTGRES=1');
    return;
  }
  let server: PostgresServer | undefined;
  let url: string;
  before(async () => {
    server = await startPostgresServer();
    url = await server.createDatabase('sql_snapshot');
    const store = new PostgresLedgerStore(url);
    try {
      await store.migrate();
      await store.load(randomLedger(5, 20));
    } finally {
      await store.close();
    }
  });
  after(async () => {
    await server?.destroy();
  });

  it('reads the catalog, and on abort cancels the running statement on the server', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      const read = (signal?: AbortSignal) =>
        pool.connect().then((client) =>
          readInSnapshot(
            client,
            pool,
            (view) => view.getCatalog(RANDOM_COMPANY),
            { signal },
            () => undefined,
          ).finally(() => client.release()),
        );
      expect((await read())?.company.id).to.equal(RANDOM_COMPANY);

      // The catalog's table held by another transaction: the read waits on its lock until it is cancelled.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE companies IN ACCESS EXCLUSIVE MODE');
      const controller = new AbortController();
      const reading = read(controller.signal).then(
        () => undefined,
        (error: unknown) => error,
      );
      const waiting = async () =>
        (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).rows[0]
          .n as number;
      for (let tries = 0; (await waiting()) === 0; tries++) {
        if (tries > 200) throw new Error('the read never waited on the lock');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const reason = new Error('the request timed out');
      controller.abort(reason);
      expect(await reading).to.equal(reason);
      expect(await waiting()).to.equal(0); // cancelled on the server, not left waiting for the lock
      await holder.query('ROLLBACK');
      expect((await read())?.company.id).to.equal(RANDOM_COMPANY); // its connection is usable again
    } finally {
      await holder.end();
      await pool.end();
    }
  });
});
