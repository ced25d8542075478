/**
 * The month snapshots' reader on PostgreSQL reads the entries' mark in its own statement
 * (COMPANY_SNAPSHOTS_SQL, one round trip): a company is behind exactly when it has an entry past the mark (or
 * no mark is recorded), and the check walks journal_entries' key from the mark, without statistics of the table and
 * with them (EXPLAIN).
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { COMPANY_SNAPSHOTS_SQL, SNAPSHOTS_BEHIND } from '../../../src/store/sql/month-snapshots-sql.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

const MARK = 'balance_snapshots_entries';

/** A plan node of EXPLAIN (FORMAT JSON), with the nodes under it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

(skipPostgres ? describe.skip : describe)("PostgreSQL: the month snapshots' reader reads the mark itself", function () {
  this.timeout(120_000);
  let server: PostgresServer;
  let client: pg.Client;
  before(async () => {
    server = await startPostgresServer();
    const url = await server.createDatabase('snapshots_mark');
    const store = new PostgresLedgerStore(url);
    try {
      await store.migrate();
      await store.load(randomLedger(5, 20_000)); // large enough that a scan and sort costs more than the key
    } finally {
      await store.close();
    }
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await server?.destroy();
  });

  const behind = async () =>
    (await client.query<{ month: number }>(COMPANY_SNAPSHOTS_SQL, [RANDOM_COMPANY])).rows.some(
      (row) => row.month === SNAPSHOTS_BEHIND,
    );
  const journalEntriesAccess = async () => {
    const [{ 'QUERY PLAN': plan }] = (
      await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${COMPANY_SNAPSHOTS_SQL}`, [
        RANDOM_COMPANY,
      ])
    ).rows as [{ 'QUERY PLAN': [{ Plan: PlanNode }] }];
    return nodesOf(plan[0].Plan)
      .filter((node) => node['Relation Name'] === 'journal_entries')
      .map((node) => `${node['Node Type']} ${node['Index Name']} ${node['Index Cond']}`);
  };

  it('When the company has no entry past the mark, then its snapshots are read; past it, they are behind', async () => {
    expect(await behind()).to.equal(false);
    const [{ last }] = (await client.query<{ last: string }>('SELECT MAX(id) AS last FROM journal_entries')).rows as [
      { last: string },
    ];
    const [{ first }] = (
      await client.query<{ first: string }>('SELECT MAX(id) AS first FROM journal_entries WHERE company_id = $1', [
        RANDOM_COMPANY,
      ])
    ).rows as [{ first: string }];
    try {
      await client.query('UPDATE settings SET value = $1 WHERE key = $2', [String(Number(first) - 1), MARK]);
      expect(await behind()).to.equal(true);
      await client.query('DELETE FROM settings WHERE key = $1', [MARK]);
      expect(await behind()).to.equal(true); // no mark: every entry is past it
    } finally {
      await client.query('DELETE FROM settings WHERE key = $1', [MARK]);
      await client.query('INSERT INTO settings (key, value) VALUES ($1, $2)', [MARK, last]);
    }
    expect(await behind()).to.equal(false);
  });

  it("When the check is planned, then it walks journal_entries' key from the mark, statistics or none", async () => {
    for (const statistics of [false, true]) {
      if (statistics) await client.query('ANALYZE');
      const access = await journalEntriesAccess();
      expect(access, `statistics: ${statistics}`).to.have.length(1);
      expect(access[0], `statistics: ${statistics}`).to.match(
        /^Index Scan journal_entries_pkey \(id > COALESCE\(\$\d+, '-1'::bigint\)\)$/,
      );
    }
  });
});
