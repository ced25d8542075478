/**
 * The PostgreSQL adapter on a real throwaway server: the LedgerStore contract (test/support/store-contract.ts), a
 * link secret shared by instances, month snapshots (month-snapshots-suite.ts), and databases made by earlier
 * versions. Skipped only with SKIP_POSTGRES=1; missing binaries make the suite fail with a clear message.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { contract, expectOracleFigures } from '../../support/store-contract.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { randomLedger } from '../../support/random-store-ledger.ts';
import { monthSnapshotsSuite } from '../../support/month-snapshots-suite.ts';
import { writeAsOlderTool } from '../../support/older-tool-write.ts';
import { session } from '../../../src/store/postgres/session.ts';
import { inTransaction, type SqlSession } from '../../../src/store/sql/session.ts';

describe('PostgreSQL adapter', function () {
  this.timeout(120_000);
  if (skipPostgres) {
    it('is skipped because SKIP_POSTGRES=1');
    return;
  }
  let server: PostgresServer | undefined;
  let n = 0;
  before(async () => {
    server = await startPostgresServer();
  });
  after(async () => {
    await server?.destroy();
  });

  contract('PostgreSQL', async () => {
    if (!server) throw new Error('PostgreSQL test server did not start');
    return new PostgresLedgerStore(await server.createDatabase(`contract_${++n}`));
  });

  monthSnapshotsSuite(
    'PostgreSQL',
    async () => {
      const url = await server!.createDatabase(`snapshots_${++n}`);
      const sql = async <T>(fn: (s: SqlSession, client: pg.Client) => Promise<T>): Promise<T> => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return await fn(session(client as unknown as pg.PoolClient), client);
        } finally {
          await client.end();
        }
      };
      return {
        async open() {
          const store = new PostgresLedgerStore(url);
          await store.migrate();
          return store;
        },
        openUnmigrated: async () => new PostgresLedgerStore(url),
        dropSnapshots: () => sql((s) => s.query('DROP TABLE balance_snapshots')).then(() => undefined),
        // As the tools of before took it: the load lock, the rows, the change logged (its deltas left out, so that
        // followers read the company again) and notified.
        olderToolImport: (entries, beforeCommit) =>
          sql((s) =>
            inTransaction(s, async () => {
              await s.query('LOCK TABLE journal_entries IN SHARE ROW EXCLUSIVE MODE');
              await writeAsOlderTool(s, entries);
              const [change] = await s.query(
                "INSERT INTO ledger_changes (company_ids, deltas_pruned) VALUES ('{7}', true) RETURNING seq",
              );
              await s.query("SELECT pg_notify('ledger_changed', CAST($1 AS TEXT))", [String(change!.seq)]);
              await beforeCommit?.();
            }),
          ),
        sql: (fn) => sql((s) => fn(s)),
        someoneWaits: (done, sessions = 1) =>
          sql(async (s) => {
            let settled = false;
            done.then(
              () => (settled = true),
              () => (settled = true),
            );
            const waiting = async () =>
              Number(
                (
                  await s.query(
                    `SELECT COUNT(*) AS n FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock'`,
                  )
                )[0]!.n,
              );
            while (!settled && (await waiting()) < sessions) await new Promise((resolve) => setTimeout(resolve, 20));
          }),
        holdingSettings: (fn) =>
          sql((s) =>
            inTransaction(s, async () => {
              await s.query('LOCK TABLE settings IN ACCESS EXCLUSIVE MODE');
              return fn();
            }),
          ),
        cleanUp: async () => undefined,
      };
    },
    { writersBesideInstances: true },
  );

  it('two instances over one database share one link secret (so every instance verifies every link)', async () => {
    const url = await server!.createDatabase('link_secret_shared');
    const [a, b] = [new PostgresLedgerStore(url), new PostgresLedgerStore(url)];
    try {
      await Promise.all([a.migrate(), b.migrate()]);
      const [sa, sb] = await Promise.all([a.linkSecret(), b.linkSecret()]);
      expect(sa).to.equal(sb);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it(
    "a database made by an earlier version loses its per-line options table and its entries' date index when " +
      'opened, keeping its figures',
    async () => {
      const url = await server!.createDatabase('earlier_version');
      const batch = randomLedger(4343, 300);
      const first = new PostgresLedgerStore(url);
      await first.migrate();
      await first.load(batch);
      await first.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const relations = async () =>
        (
          await admin.query(`SELECT relname FROM pg_class
      WHERE relname IN ('journal_line_options', 'journal_line_options_line', 'journal_entries_company_date')
        ORDER BY 1`)
        ).rows.map((r) => r.relname);
      try {
        // What an earlier version made: options per line, beside the tag sets', and an index by company and date.
        await admin.query(
          'CREATE TABLE journal_line_options (line_id BIGINT NOT NULL, option_id VARCHAR(32) NOT NULL)',
        );
        await admin.query('CREATE INDEX journal_line_options_line ON journal_line_options (line_id)');
        await admin.query(
          `INSERT INTO journal_line_options SELECT l.id, o.option_id FROM journal_lines l JOIN tag_set_options o ` +
            `ON o.tag_set_id = l.tag_set_id`,
        );
        await admin.query('CREATE INDEX journal_entries_company_date ON journal_entries (company_id, entry_date)');
        expect(await relations()).to.have.length(3);
        const store = new PostgresLedgerStore(url);
        try {
          await store.migrate();
          expect(await relations()).to.deep.equal([]);
          await expectOracleFigures(
            batch,
            12,
            10,
            (q) => store.scanPnlByAccountMonth(q),
            (q) => store.sumPnlByAccountMonth(q),
          );
        } finally {
          await store.close();
        }
      } finally {
        await admin.end();
      }
    },
  );
});
