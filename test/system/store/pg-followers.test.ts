/**
 * PostgreSQL instances answer reports from memory (pg-followed-companies.ts), kept current by the change log and
 * LISTEN/NOTIFY. Two store objects over one real PostgreSQL server stand for two instances: after every load through
 * either, both answer what a full scan of journal_lines answers; a reader never sees part of an import; a store
 * opened later (a restarted instance) starts from the current ledger.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { seededRandom } from '../../../src/store/demo-ledger.ts';
import type { AccountMonthTotal, LedgerBatch, PnlQuery } from '../../../src/domain/ledger.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { RANDOM_COMPANY, expectedTotals, randomLedger, randomQuery } from '../../support/random-store-ledger.ts';

/** How long a change may take to reach another instance here (the goal is 1 s; a loaded CI machine gets slack). */
const PROPAGATION_MS = 3_000;
const YEAR: PnlQuery = {
  companyId: RANDOM_COMPANY,
  from: '2023-01-01',
  to: '2025-06-30',
  locationIds: [],
  optionGroups: [],
};

async function eventually(check: () => Promise<void>, ms = PROPAGATION_MS): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

(skipPostgres ? describe.skip : describe)(
  'PostgreSQL instances: reports from memory, kept current by LISTEN/NOTIFY',
  function () {
    this.timeout(120_000);
    let server: PostgresServer;
    let n = 0;
    const opened: PostgresLedgerStore[] = [];
    before(async () => {
      server = await startPostgresServer('followers');
    });
    after(async () => {
      await server?.destroy();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    let url = '';
    const open = (): PostgresLedgerStore => {
      const store = new PostgresLedgerStore(url);
      opened.push(store);
      return store;
    };
    async function instances(count: number): Promise<PostgresLedgerStore[]> {
      url = await server.createDatabase(`followers_${++n}`);
      const stores = Array.from({ length: count }, open);
      for (const s of stores) await s.migrate();
      return stores;
    }

    const batch = randomLedger(9191, 1800);
    const entries = batch.entries!.map((e, i) => ({ ...e, ref: `E${i}` }));
    const upTo = (k: number): LedgerBatch => ({ ...batch, entries: entries.slice(0, k) });

    /** Every instance answers, from memory, what SQL, a full scan and the JS oracle answer for the ledger `loaded`. */
    async function agree(stores: PostgresLedgerStore[], loaded: LedgerBatch, seed: number): Promise<void> {
      const rnd = seededRandom(seed);
      const queries = [YEAR, ...Array.from({ length: 12 }, () => randomQuery(rnd))];
      for (const query of queries) {
        const scan = await stores[0]!.scanPnlByAccountMonth(query);
        expect(scan, JSON.stringify(query)).to.deep.equal(expectedTotals(loaded, query));
        expect(await stores[0]!.sumPnlBySql(query), JSON.stringify(query)).to.deep.equal(scan);
        for (const store of stores) {
          await eventually(
            async () => void expect(await store.sumPnlByAccountMonth(query), JSON.stringify(query)).to.deep.equal(scan),
          );
        }
      }
    }

    it(
      'after every load through either instance, both equal a full scan (added, refused, replaced ' + 'entries)',
      async () => {
        const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
        await a.load(upTo(600));
        await agree([a, b], upTo(600), 1); // both build from balance_daily
        await b.load({ entries: entries.slice(600, 1200) }); // b's own load, a hears of it
        await agree([a, b], upTo(1200), 2);
        const unbalanced = { ...entries[1200]!, lines: [{ ...entries[1200]!.lines[0]!, cents: 1 }] };
        await a.load({ entries: [...entries.slice(1200), unbalanced] }).then(
          () => expect.fail('loaded'),
          () => undefined,
        );
        await agree([a, b], upTo(1200), 3); // a refused load changes nothing anywhere
        // Re-imported ids replace their entries: the earlier lines leave every instance's figures.
        const replaced = entries
          .slice(0, 300)
          .map((e) => ({ ...e, lines: e.lines.map((l) => ({ ...l, cents: -l.cents })) }));
        await a.load({ entries: replaced, replaceEntries: true });
        const afterReplace = { ...batch, entries: [...replaced, ...entries.slice(300, 1200)] };
        await agree([a, b], afterReplace, 4);
      },
    );

    it('one load of two companies reaches the figures of both on the other instance, which follows both', async () => {
      const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
      // Company 8: the same journal under ids of its own (untagged: the tracking options are company 7's).
      const OTHER = 8;
      const asOther = (list: typeof entries) =>
        list.map((e) => ({
          ...e,
          companyId: OTHER,
          locationId: e.locationId + 10,
          lines: e.lines.map((l) => ({
            accountId: l.accountId + 10_000,
            cents: l.cents,
            ...(l.locationId ? { locationId: l.locationId + 10 } : {}),
          })),
        }));
      const other: LedgerBatch = {
        companies: [{ id: OTHER, name: 'Other Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
        locations: batch.locations!.map((l) => ({ ...l, id: l.id + 10, companyId: OTHER })),
        accounts: batch.accounts!.map((acc) => ({ ...acc, id: acc.id + 10_000, companyId: OTHER })),
      };
      await a.load(upTo(300));
      await a.load({ ...other, entries: asOther(entries.slice(0, 300)) });
      const otherQueries: PnlQuery[] = [
        { ...YEAR, companyId: OTHER },
        { ...YEAR, companyId: OTHER, from: '2023-03-15', to: '2024-02-10' },
        { ...YEAR, companyId: OTHER, from: '2024-05-02', to: '2024-05-30', locationIds: [81] },
      ];
      const otherAgrees = async (k: number) => {
        for (const query of otherQueries) {
          const expected = expectedTotals({ accounts: other.accounts, entries: asOther(entries.slice(0, k)) }, query);
          expect(await a.scanPnlByAccountMonth(query), JSON.stringify(query)).to.deep.equal(expected);
          await eventually(
            async () => void expect(await b.sumPnlByAccountMonth(query), JSON.stringify(query)).to.deep.equal(expected),
          );
        }
      };
      await agree([a, b], upTo(300), 7);
      await otherAgrees(300);
      // One change of both companies, of different sizes: b follows both.
      await a.load({ entries: [...entries.slice(300, 900), ...asOther(entries.slice(300, 500))] });
      await agree([a, b], upTo(900), 8);
      await otherAgrees(500);
    });

    it('a new account and location reach the other instance with the figures that use them', async () => {
      const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
      await a.load(upTo(200));
      expect((await b.getCatalog(RANDOM_COMPANY))!.accounts.map((x) => x.id)).to.not.include(4900);
      await a.load({
        accounts: [
          {
            id: 4900,
            companyId: RANDOM_COMPANY,
            number: '4900',
            name: 'Catering',
            type: 'Income',
            parentId: null,
            isActive: true,
            standardAccountId: null,
          },
        ],
        entries: [
          {
            companyId: RANDOM_COMPANY,
            locationId: 71,
            date: '2024-03-03',
            ref: 'CAT1',
            lines: [
              { accountId: 4900, cents: -5000 },
              { accountId: 1000, cents: 5000 },
            ],
          },
        ],
      });
      await eventually(async () => {
        await b.readSnapshot(async (view) => {
          const catalog = await view.getCatalog(RANDOM_COMPANY);
          const sums = await view.sumPnlByAccountMonth({ ...YEAR, from: '2024-03-01', to: '2024-03-31' });
          expect(catalog!.accounts.map((x) => x.id)).to.include(4900);
          expect(sums.find((s) => s.accountId === 4900)).to.deep.equal({
            accountId: 4900,
            month: '2024-03',
            cents: -5000,
          });
        });
      });
    });

    it("a load of entries alone keeps a follower's catalog (not read again); reference rows renew it", async () => {
      const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
      await a.load(upTo(200));
      expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(200), YEAR)); // b follows
      const followed = await b.getCatalog(RANDOM_COMPANY);
      await a.load({ entries: entries.slice(200, 400) });
      const caughtUp = expectedTotals(upTo(400), YEAR);
      await eventually(async () => void expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(caughtUp));
      expect(await b.getCatalog(RANDOM_COMPANY)).to.equal(followed);
      await a.load({ locations: [{ id: 79, companyId: RANDOM_COMPANY, name: 'Annex' }] });
      await eventually(async () => {
        const renewed = await b.getCatalog(RANDOM_COMPANY);
        expect(renewed!.locations.map((l) => l.id)).to.include(79);
        expect(renewed!.accounts).to.deep.equal(followed!.accounts);
      });
    });

    it('a reader on another instance sees each import entirely or not at all', async () => {
      const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
      await a.load(upTo(900));
      const before = expectedTotals(upTo(900), YEAR);
      const after = expectedTotals(upTo(1800), YEAR);
      expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(before);
      const seen: AccountMonthTotal[][] = [];
      let loading = true;
      const loadingDone = a.load({ entries: entries.slice(900) }).finally(() => {
        loading = false;
      });
      while (loading) {
        seen.push(await b.readSnapshot((view) => view.sumPnlByAccountMonth(YEAR)));
        await new Promise((r) => setImmediate(r)); // memory answers without I/O: let the load and the feed run
      }
      await loadingDone;
      await eventually(async () => void expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(after));
      for (const figures of seen) expect([before, after]).to.deep.include(figures);
    });

    it('an instance whose connection to PostgreSQL broke, or one started later, catches up', async () => {
      const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
      await a.load(upTo(400));
      expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(400), YEAR));
      // The server ends the LISTEN connections (as a restart or a network cut would); loads commit meanwhile.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'");
      } finally {
        await admin.end();
      }
      await a.load({ entries: entries.slice(400, 1200) });
      await eventually(
        async () => void expect(await b.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(1200), YEAR)),
        10_000,
      );
      expect(await open().sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(1200), YEAR));
    });

    it(
      'the change log keeps a window; an instance cut off for longer re-reads the company from a fresh ' + 'snapshot',
      async () => {
        const [a] = (await instances(1)) as [PostgresLedgerStore];
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          // The lagging instance logs in as a role of its own, so that it alone can be kept from reconnecting.
          await admin.query('CREATE ROLE lagging LOGIN SUPERUSER');
          const lagging = new PostgresLedgerStore(url.replace('//postgres@', '//lagging@'));
          opened.push(lagging);
          await a.load(upTo(400));
          expect(await lagging.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(400), YEAR));
          // Its listening connection is cut and cannot come back: it hears of nothing while two loads commit.
          await admin.query('ALTER ROLE lagging NOLOGIN');
          await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'lagging' AND query LIKE 'LISTEN%'",
          );
          await a.load({ entries: entries.slice(400, 900) });
          // Eleven minutes pass (the retention is ten): the next load prunes the changes before it, deltas and all.
          await admin.query("UPDATE ledger_changes SET committed_at = committed_at - interval '11 minutes'");
          await a.load({ entries: entries.slice(900, 1200) });
          const log = await admin.query(
            `SELECT CAST(seq AS INTEGER) AS seq, (SELECT COUNT(*) FROM ledger_deltas d WHERE d.seq = c.seq) AS deltas,
                  (SELECT CAST(through AS INTEGER) FROM ledger_changes_pruned) AS pruned
             FROM ledger_changes c`,
          );
          expect(
            log.rows.map((r) => [r.seq, Number(r.deltas) > 0, r.pruned]),
            'the log kept',
          ).to.deep.equal([[3, true, 2]]);
          expect((await admin.query('SELECT DISTINCT seq FROM ledger_deltas')).rowCount, 'deltas kept').to.equal(1);
          expect(await lagging.sumPnlByAccountMonth(YEAR), 'while cut off').to.deep.equal(
            expectedTotals(upTo(400), YEAR),
          );
          // Back (its reconnection pauses grow to 5 s): it reads the ledger it missed, the pruned changes included.
          await admin.query('ALTER ROLE lagging LOGIN');
          await eventually(
            async () =>
              void expect(await lagging.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(1200), YEAR)),
            15_000,
          );
          await agree([a, lagging], upTo(1200), 5);
          // And follows the next load by its deltas again.
          await a.load({ entries: entries.slice(1200, 1500) });
          await agree([a, lagging], upTo(1500), 6);
        } finally {
          await admin.end();
        }
      },
    );

    it(
      'a large load is logged without its deltas (the other instance re-reads the company); a small one with ' + 'them',
      async () => {
        const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
        await a.load(upTo(400));
        await agree([a, b], upTo(400), 7);
        // About 14,000 balance_daily keys, ten times the table's: at least LARGE_DELTA_ROWS (change-log-sql.ts) and a
        // fair share.
        const large = randomLedger(9292, 5000).entries!.map((e, i) => ({ ...e, ref: `L${i}` }));
        await a.load({ entries: large });
        await a.load({ entries: entries.slice(400, 700) });
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          const logged = await admin.query(`SELECT c.deltas_pruned AS pruned, (SELECT COUNT(*) FROM ledger_deltas d
            WHERE d.seq = c.seq) AS deltas
          FROM ledger_changes c ORDER BY c.seq`);
          expect(logged.rows.map((r) => [r.pruned, Number(r.deltas) > 0])).to.deep.equal([
            [false, true],
            [true, false],
            [false, true],
          ]);
          const [{ keys }] = (await admin.query('SELECT COUNT(*) AS keys FROM balance_daily')).rows;
          expect(Number(keys)).to.be.greaterThan(10_000);
        } finally {
          await admin.end();
        }
        await agree([a, b], { ...batch, entries: [...entries.slice(0, 700), ...large] }, 8);
      },
    );

    it(
      'a key revoked or created through one instance is refused or accepted by the other at once (NOTIFY), though ' +
        'it keeps found keys',
      async () => {
        const [a, b] = (await instances(2)) as [PostgresLedgerStore, PostgresLedgerStore];
        await a.load(upTo(10));
        const hash = 'ab'.repeat(32);
        expect(await b.findApiKeyByHash(hash)).to.equal(undefined);
        const record = await a.createApiKey({ name: 'k', keyHash: hash, companyIds: [RANDOM_COMPANY] });
        await eventually(async () => void expect((await b.findApiKeyByHash(hash))?.id).to.equal(record.id));
        // Kept once found.
        await eventually(async () => void expect(b.findApiKeyByHash(hash)).to.equal(b.findApiKeyByHash(hash)));
        await a.revokeApiKey(record.id);
        await eventually(
          async () => void expect((await b.findApiKeyByHash(hash))?.revokedAt).to.be.instanceOf(Date),
          1_000,
        );
      },
    );
  },
);
