/**
 * Red-team findings 4 and 5 (issue 15) on a real PostgreSQL server: two instances starting together on an empty
 * database both seeded the demo ledger (every figure doubled); a report read during an import mixed the catalog of
 * one state with the sums of another. Also: a request that timed out cancels its running statement.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createFirstApiKey } from '../../../src/auth/api-keys.ts';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { generateDemoLedger, seedDemoIfEmpty } from '../../../src/store/demo-ledger.ts';
import type { LedgerBatch, PnlQuery } from '../../../src/domain/ledger.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';

/** The worked example's company over 2024, every location and tracking option. */
const WORKED_EXAMPLE_YEAR: PnlQuery = {
  companyId: 1,
  from: '2024-01-01',
  to: '2024-12-31',
  locationIds: [],
  optionGroups: [],
};

function startInstance(databaseUrl: string): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${out}`)), 90_000);
    child.once('exit', (code) => reject(new Error(`instance exited ${code}:\n${out}`)));
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return { child, ready };
}

async function counts(url: string): Promise<{ companies: number; entries: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT (SELECT count(*) FROM companies) AS companies, (SELECT count(*) FROM journal_entries) AS entries',
    );
    return { companies: Number(rows[0].companies), entries: Number(rows[0].entries) };
  } finally {
    await client.end();
  }
}

(skipPostgres ? describe.skip : describe)('PostgreSQL races (issue 15, findings 4 and 5)', function () {
  this.timeout(180_000);
  let server: PostgresServer;
  before(async () => {
    server = await startPostgresServer('races');
  });
  after(() => server?.destroy());

  it('finding 4: two real instances started together on an empty database seed the demo ledger once', async () => {
    const url = await server.createDatabase('seed_twice');
    const instances = [startInstance(url), startInstance(url)];
    try {
      await Promise.all(instances.map((i) => i.ready));
      const demoEntries = generateDemoLedger({ to: new Date().toISOString().slice(0, 10) }).entries!.length;
      const seen = await counts(url);
      expect(seen.companies).to.equal(1);
      // The demo runs up to today in New York; either instance's "today" gives the same count give or take one day.
      expect(seen.entries).to.be.within(demoEntries - 50, demoEntries + 50);
      expect(seen.entries).to.be.below(demoEntries * 1.5);
    } finally {
      for (const { child } of instances) child.kill('SIGKILL');
    }
  });

  it('finding 4: four stores racing loadIfEmpty on one empty database load exactly once', async () => {
    const url = await server.createDatabase('seed_race');
    const stores = Array.from({ length: 4 }, () => new PostgresLedgerStore(url));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      const results = await Promise.all(stores.map((s) => seedDemoIfEmpty(s, '2024-03-31', { locations: 1 })));
      expect(results.filter(Boolean)).to.have.length(1);
      const expected = generateDemoLedger({ to: '2024-03-31', locations: 1 }).entries!.length;
      expect((await counts(url)).entries).to.equal(expected);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('issue 25, finding 8: three stores racing for the demo key on one database make exactly one', async () => {
    const url = await server.createDatabase('demo_key_race');
    const stores = Array.from({ length: 3 }, () => new PostgresLedgerStore(url));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      await seedDemoIfEmpty(stores[0]!, '2024-03-31', { locations: 1 });
      const made = await Promise.all(stores.map((s) => createFirstApiKey(s, { name: 'demo', companyIds: [1] })));
      expect(made.filter(Boolean), 'keys handed out').to.have.length(1);
      expect(await stores[1]!.listApiKeys(), 'keys stored').to.have.length(1);
      expect(
        await createFirstApiKey(stores[2]!, { name: 'demo', companyIds: [1] }),
        'a later start makes none',
      ).to.equal(undefined);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it(
    'finding 5: a report reads one snapshot: an import committing between its catalog and its sums is not ' + 'seen',
    async () => {
      const url = await server.createDatabase('snapshot');
      const store = new PostgresLedgerStore(url);
      const writer = new PostgresLedgerStore(url);
      try {
        await store.migrate();
        await store.load(workedExampleBatch);
        const catalog = (await store.getCatalog(1))!;
        const location = catalog.locations[0]!.id;
        const income = catalog.accounts.find((a) => a.type === 'Income')!;
        const bank = catalog.accounts.find((a) => a.type === 'Bank')!;
        const sale: LedgerBatch = {
          accounts: [
            {
              id: 990_001,
              companyId: 1,
              number: '4990',
              name: 'New Income',
              type: 'Income',
              parentId: null,
              isActive: true,
              standardAccountId: null,
            },
          ],
          entries: [
            {
              companyId: 1,
              locationId: location,
              date: '2024-02-10',
              lines: [
                { accountId: income.id, cents: -1_000_000 },
                { accountId: 990_001, cents: -500 },
                { accountId: bank.id, cents: 1_000_500 },
              ],
            },
          ],
        };
        const before = await store.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR);
        const seen = await store.readSnapshot(async (view) => {
          const c = await view.getCatalog(1);
          await writer.load(sale); // another connection commits the import meanwhile
          return { accounts: c!.accounts.length, sums: await view.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR) };
        });
        expect(seen.accounts).to.equal(catalog.accounts.length);
        expect(seen.sums).to.deep.equal(before);
        // The import did commit: the store (another instance than the writer) hears of it by NOTIFY, within 1 s (issue
        // 23).
        let after = await store.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR);
        for (
          const until = Date.now() + 1_000;
          Date.now() < until && JSON.stringify(after) === JSON.stringify(before);
        ) {
          await new Promise((r) => setTimeout(r, 20));
          after = await store.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR);
        }
        expect(after).to.not.deep.equal(before);
      } finally {
        await writer.close();
        await store.close();
      }
    },
  );

  it(
    'an aborted read stops with the abort reason (the time-out of finding 2), and the store keeps ' + 'serving',
    async () => {
      const url = await server.createDatabase('cancel');
      const store = new PostgresLedgerStore(url);
      try {
        await store.migrate();
        await store.load(workedExampleBatch);
        const abort = new AbortController();
        const reason = new Error('timed out');
        setTimeout(() => abort.abort(reason), 200);
        let reads = 0;
        const outcome = await store
          .readSnapshot(
            async (view) => {
              for (;;) {
                await view.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR); // a report that would never end
                reads++;
              }
            },
            { signal: abort.signal },
          )
          .then(
            () => 'finished',
            (e: unknown) => e,
          );
        expect(outcome).to.equal(reason);
        expect(reads).to.be.above(0);
        expect(await store.sumPnlByAccountMonth(WORKED_EXAMPLE_YEAR)).to.not.be.empty;
        const aborted = AbortSignal.abort(reason);
        expect(await store.readSnapshot(async () => 'ran', { signal: aborted }).catch((e: unknown) => e)).to.equal(
          reason,
        );
      } finally {
        await store.close();
      }
    },
  );
});
