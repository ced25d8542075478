/**
 * One contract suite, run against both adapters: DuckDB (':memory:') and a real throwaway PostgreSQL server.
 * PostgreSQL is skipped only with SKIP_POSTGRES=1; missing binaries make the suite fail with a clear message.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { DuckDbLedgerStore } from '../../src/store/duckdb-store.ts';
import { PostgresLedgerStore } from '../../src/store/postgres-store.ts';
import { LedgerValidationError } from '../../src/store/errors.ts';
import { CsvImportError, importLedgerCsv } from '../../src/store/csv-import.ts';
import { generateDemoLedger, seedDemoIfEmpty, seededRandom } from '../../src/store/demo-ledger.ts';
import type { AccountMonthTotal, LedgerBatch, LedgerStore, PnlQuery } from '../../src/store/ledger-store.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import { AIRPORT, DELIVERY, DINE_IN, workedExampleBatch } from '../fixtures/worked-example.ts';
import { expectedTotals, randomLedger, randomQuery } from './random-ledger.ts';

type TestStore = LedgerStore & { scanPnlByAccountMonth(q: PnlQuery): Promise<AccountMonthTotal[]> };

const q = (from: string, to: string, extra: Partial<PnlQuery> = {}): PnlQuery => ({
  companyId: 1,
  from,
  to,
  locationIds: [],
  optionGroups: [],
  ...extra,
});
const t = (accountId: number, month: string, dollars: number): AccountMonthTotal => ({
  accountId,
  month,
  cents: Math.round(dollars * 100),
});

const REQUEST_A: AccountMonthTotal[] = [
  t(4000, '2024-01', -1450),
  t(4000, '2024-02', -1200),
  t(4100, '2024-02', -300),
  t(5000, '2024-01', 300),
  t(5000, '2024-02', 450),
  t(6000, '2024-01', 250),
  t(6000, '2024-02', 250),
  t(6100, '2024-01', 300),
  t(6100, '2024-02', 300),
  t(7000, '2024-02', -10),
  t(8000, '2024-02', 25),
];

const JOURNAL_CSV = `entry,date,location,account,amount,options,memo
S1,2024-01-05,10,4000,-1000.00,${DINE_IN},Dinner
S1,2024-01-05,10,1000,1000.00,,
S2,2024-01-15,20,4000,-500,${DELIVERY.toUpperCase()},Delivery batch
S2,2024-01-15,20,1000,500,,
"F 1",2024-02-12,10,5000,450.5,,"Food, produce"
"F 1",2024-02-12,10,1000,-450.50,,
`;

const REFERENCE_CSV = `kind,id,company_id,name,type,number,parent_id,standard_account_id,category_id,base_currency,time_zone
company,1,,Csv Co,,,,,,USD,America/New_York
location,10,1,Downtown,,,,,,,
location,20,1,Airport,,,,,,,
standard_account,400,1,Revenue,Income,400,,,,,
account,1000,1,Cash,Bank,1000,,,,,
account,4000,1,Sales,Income,4000,,400,,,
account,5000,1,Food Cost,COGS,5000,,,,,
tracking_category,6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60,1,Channel,,,,,,,
tracking_option,${DINE_IN},,DineIn,,,,,6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60,,
tracking_option,${DELIVERY},,Delivery,,,,,6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60,,
`;

/** Each read's figures for `count` random queries (seeded by `seed`) equal the JavaScript oracle's for `batch`. */
async function expectOracleFigures(
  batch: LedgerBatch,
  seed: number,
  count: number,
  ...reads: ((q: PnlQuery) => Promise<AccountMonthTotal[]>)[]
): Promise<void> {
  const rnd = seededRandom(seed);
  for (let i = 0; i < count; i++) {
    const query = randomQuery(rnd);
    for (const read of reads)
      expect(await read(query), JSON.stringify(query)).to.deep.equal(expectedTotals(batch, query));
  }
}

function contract(name: string, open: () => Promise<TestStore>): void {
  describe(`LedgerStore contract: ${name}`, function () {
    this.timeout(60_000);
    let store: TestStore;
    beforeEach(async () => {
      store = await open();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('worked example (pnl-semantics §5)', () => {
      beforeEach(async () => {
        await store.migrate();
        await store.load(workedExampleBatch);
      });

      it('is not empty after loading and migrate() stays idempotent', async () => {
        expect(await store.isEmpty()).to.equal(false);
        await store.migrate();
        await store.ping();
      });

      it('returns the catalog', async () => {
        const c = (await store.getCatalog(1))!;
        expect(c.company).to.deep.equal(workedExampleBatch.companies![0]);
        expect(c.locations.map((l) => [l.id, l.name])).to.deep.equal([
          [10, 'Downtown'],
          [20, 'Airport'],
        ]);
        expect(c.accounts).to.deep.equal(workedExampleBatch.accounts);
        expect(c.standardAccounts).to.deep.equal(workedExampleBatch.standardAccounts);
        expect(c.trackingCategories).to.deep.equal(workedExampleBatch.trackingCategories);
        expect(c.trackingOptions.map((o) => o.name).sort()).to.deep.equal(['Delivery', 'DineIn']);
        expect(await store.getCatalog(99)).to.equal(undefined);
      });

      it('shows reference data loaded after an earlier read (no stale catalog), and a company loaded after a miss', async () => {
        expect((await store.getCatalog(1))!.locations).to.have.length(2);
        await store.load({
          locations: [{ id: 30, companyId: 1, name: 'Harbor' }],
          companies: [{ id: 99, name: 'Late Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
        });
        expect((await store.getCatalog(1))!.locations.map((l) => l.id)).to.deep.equal([10, 20, 30]);
        expect((await store.getCatalog(99))!.company.name).to.equal('Late Co');
      });

      it('request A: Jan 1 - Feb 29 2024, all locations', async () => {
        expect(await store.sumPnlByAccountMonth(q('2024-01-01', '2024-02-29'))).to.deep.equal(REQUEST_A);
      });

      it('variant C: location 20 only', async () => {
        expect(
          await store.sumPnlByAccountMonth(q('2024-01-01', '2024-02-29', { locationIds: [AIRPORT] })),
        ).to.deep.equal([t(4000, '2024-01', -450), t(8000, '2024-02', 25)]);
      });

      it('variant D: DineIn filter keeps only tagged lines 1 and 7', async () => {
        expect(
          await store.sumPnlByAccountMonth(q('2024-01-01', '2024-02-29', { optionGroups: [[DINE_IN]] })),
        ).to.deep.equal([t(4000, '2024-01', -1000), t(4000, '2024-02', -1200)]);
        expect(
          await store.sumPnlByAccountMonth(
            q('2024-01-01', '2024-02-29', { optionGroups: [[DINE_IN.toUpperCase(), DELIVERY]] }),
          ),
        ).to.deep.equal([t(4000, '2024-01', -1450), t(4000, '2024-02', -1200), t(4100, '2024-02', -300)]);
        expect(
          await store.sumPnlByAccountMonth(
            q('2024-01-01', '2024-02-29', { optionGroups: [['ffffffffffffffffffffffffffffffff']] }),
          ),
        ).to.deep.equal([]);
      });

      it('partial months (Jan 15 - Feb 10) come from the daily pre-aggregates', async () => {
        expect(await store.sumPnlByAccountMonth(q('2024-01-15', '2024-02-10'))).to.deep.equal([
          t(4000, '2024-01', -450),
          t(4000, '2024-02', -1200),
          t(4100, '2024-02', -300),
          t(5000, '2024-01', 300),
          t(6000, '2024-01', 250),
          t(6100, '2024-01', 300),
        ]);
        expect(await store.sumPnlByAccountMonth(q('2024-01-18', '2024-01-18'))).to.deep.equal([t(4000, '2024-01', 50)]);
        expect(
          await store.sumPnlByAccountMonth(
            q('2024-01-06', '2024-02-02', { locationIds: [10], optionGroups: [[DINE_IN]] }),
          ),
        ).to.deep.equal([]);
      });

      it('line 14 (2024-03-01) never appears in a range ending Feb 29', async () => {
        for (const from of ['2024-01-01', '2023-06-15', '2024-02-29']) {
          const rows = await store.sumPnlByAccountMonth(q(from, '2024-02-29'));
          expect(rows.filter((r) => r.month === '2024-03')).to.deep.equal([]);
        }
        expect(
          await store.sumPnlByAccountMonth(q('2024-02-29', '2024-03-01', { optionGroups: [[DINE_IN]] })),
        ).to.deep.equal([t(4000, '2024-03', -999)]);
        expect(await store.sumPnlByAccountMonth(q('2024-03-01', '2024-12-31'))).to.deep.equal([
          t(4000, '2024-03', -999),
        ]);
      });

      it('a later batch adds to the pre-aggregates and reuses reference data', async () => {
        await store.load({
          entries: [
            {
              companyId: 1,
              locationId: 10,
              date: '2024-01-05',
              lines: [
                { accountId: 4000, cents: -1, trackingOptionIds: [DINE_IN] },
                { accountId: 1000, cents: 1 },
              ],
            },
          ],
        });
        const rows = await store.sumPnlByAccountMonth(q('2024-01-01', '2024-01-31', { optionGroups: [[DINE_IN]] }));
        expect(rows).to.deep.equal([{ accountId: 4000, month: '2024-01', cents: -100001 }]);
      });
    });

    describe('API keys', () => {
      const hash = (c: string) => c.repeat(64);
      beforeEach(async () => {
        await store.load(workedExampleBatch);
      });

      it('lists companies', async () => {
        expect((await store.listCompanies()).map((c) => c.id)).to.deep.equal([1]);
      });

      it('creates, finds by hash, lists and revokes keys; only the hash is stored', async () => {
        expect(await store.listApiKeys()).to.deep.equal([]);
        const a = await store.createApiKey({ name: 'a', keyHash: hash('a'), companyIds: [2, 1, 2] });
        const b = await store.createApiKey({ name: 'b', keyHash: hash('b'), companyIds: [1] });
        expect(a).to.include({ id: 1, name: 'a', keyHash: hash('a'), revokedAt: null });
        expect(a.companyIds).to.deep.equal([1, 2]);
        expect(b.id).to.equal(2);
        expect(a.createdAt).to.be.instanceOf(Date);
        expect(Math.abs(a.createdAt.getTime() - Date.now())).to.be.below(60_000);
        expect(await store.findApiKeyByHash(hash('b'))).to.deep.equal(b);
        expect(await store.findApiKeyByHash(hash('c'))).to.equal(undefined);
        expect(await store.revokeApiKey(1)).to.equal(true);
        expect(await store.revokeApiKey(1)).to.equal(false);
        expect(await store.revokeApiKey(99)).to.equal(false);
        const revoked = (await store.findApiKeyByHash(hash('a')))!;
        expect(revoked.revokedAt).to.be.instanceOf(Date);
        expect((await store.listApiKeys()).map((k) => [k.id, k.companyIds, k.revokedAt === null])).to.deep.equal([
          [1, [1, 2], false],
          [2, [1], true],
        ]);
        await store.migrate();
        expect((await store.listApiKeys()).length).to.equal(2);
      });

      it('refuses a duplicate hash, a malformed hash and an empty scope', async () => {
        await store.createApiKey({ name: 'a', keyHash: hash('a'), companyIds: [1] });
        let failures = 0;
        for (const bad of [
          { keyHash: hash('a'), companyIds: [1] },
          { keyHash: 'plaintext', companyIds: [1] },
          { keyHash: hash('d'), companyIds: [] },
        ]) {
          await store.createApiKey({ name: 'x', ...bad }).catch(() => failures++);
        }
        expect(failures).to.equal(3);
        expect((await store.listApiKeys()).length).to.equal(1);
      });

      it('concurrent creations get distinct ids', async () => {
        const made = await Promise.all(
          ['1', '2', '3', '4'].map((c) => store.createApiKey({ name: c, keyHash: hash(c), companyIds: [1] })),
        );
        expect(new Set(made.map((k) => k.id)).size).to.equal(4);
      });
    });

    describe('all-or-nothing load', () => {
      it('refuses a batch with one unbalanced entry and writes nothing, not even reference rows', async () => {
        const entries = workedExampleBatch.entries!.map((e, i) =>
          i === 6 ? { ...e, ref: 'line-7', lines: [e.lines[0]!, { ...e.lines[1]!, cents: e.lines[1]!.cents - 1 }] } : e,
        );
        const err = await store.load({ ...workedExampleBatch, entries }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(LedgerValidationError);
        expect((err as Error).message).to.match(/entry line-7 \(2024-02-03\).*do not balance/);
        expect((err as LedgerValidationError).issues[0]!.at).to.deep.equal({ kind: 'entry', entryIndex: 6 });
        expect(await store.isEmpty()).to.equal(true);
        expect(await store.getCatalog(1)).to.equal(undefined);
      });

      it('refuses unknown references, two options of one category and bad dates, and keeps earlier data intact', async () => {
        await store.load(workedExampleBatch);
        const bad: LedgerBatch[] = [
          { entries: [{ companyId: 1, locationId: 99, date: '2024-01-01', lines: [{ accountId: 4000, cents: 0 }] }] },
          { entries: [{ companyId: 1, locationId: 10, date: '2024-01-01', lines: [{ accountId: 4242, cents: 0 }] }] },
          { entries: [{ companyId: 1, locationId: 10, date: '2024-02-30', lines: [{ accountId: 4000, cents: 0 }] }] },
          {
            entries: [
              {
                companyId: 1,
                locationId: 10,
                date: '2024-01-01',
                lines: [{ accountId: 4000, cents: 0, trackingOptionIds: [DINE_IN, DELIVERY] }],
              },
            ],
          },
          {
            locations: [{ id: 30, companyId: 1, name: 'New' }],
            entries: [
              {
                companyId: 1,
                locationId: 30,
                date: '2024-01-01',
                lines: [
                  { accountId: 4000, cents: -5 },
                  { accountId: 1000, cents: 4 },
                ],
              },
            ],
          },
        ];
        const patterns = [
          /unknown location 99/,
          /unknown account 4242/,
          /invalid date "2024-02-30"/,
          /more than one option/,
          /do not balance/,
        ];
        for (const [i, b] of bad.entries()) {
          const err = await store.load(b).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err, `batch ${i}`).to.be.instanceOf(LedgerValidationError);
          expect((err as Error).message).to.match(patterns[i]!);
        }
        expect((await store.getCatalog(1))!.locations.map((l) => l.id)).to.deep.equal([10, 20]);
        expect(await store.sumPnlByAccountMonth(q('2024-01-01', '2024-02-29'))).to.deep.equal(REQUEST_A);
      });
    });

    describe('settings: report link secret', () => {
      it('linkSecret() creates one random secret on first use and returns it ever after, even to concurrent callers', async () => {
        const concurrent = await Promise.all([store.linkSecret(), store.linkSecret(), store.linkSecret()]);
        expect(new Set(concurrent).size).to.equal(1);
        expect(concurrent[0]).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(await store.linkSecret()).to.equal(concurrent[0]);
        await store.migrate();
        expect(await store.linkSecret()).to.equal(concurrent[0]);
      });
    });

    describe('demo ledger', () => {
      it('seedDemoIfEmpty loads once', async () => {
        expect(
          await seedDemoIfEmpty(store, '2024-03-10', { from: '2024-01-01', locations: 2, ticketsPerDay: 2 }),
        ).to.equal(true);
        expect(await seedDemoIfEmpty(store, '2024-03-10')).to.equal(false);
        const c = (await store.getCatalog(1))!;
        expect(c.company.name).to.equal('Harbor Bistro Group');
        const rows = await store.sumPnlByAccountMonth(q('2024-01-01', '2024-03-10'));
        expect(rows.some((r) => r.accountId === 4000 && r.month === '2024-03' && r.cents < 0)).to.equal(true);
      });
    });

    describe('CSV import', () => {
      it('loads a good file', async () => {
        expect(await importLedgerCsv(store, JOURNAL_CSV, { reference: REFERENCE_CSV })).to.equal(3);
        expect(await store.sumPnlByAccountMonth(q('2024-01-01', '2024-12-31'))).to.deep.equal([
          t(4000, '2024-01', -1500),
          t(5000, '2024-02', 450.5),
        ]);
        expect(
          await store.sumPnlByAccountMonth(q('2024-01-01', '2024-12-31', { optionGroups: [[DELIVERY]] })),
        ).to.deep.equal([t(4000, '2024-01', -500)]);
      });

      it('refuses a file with one bad row, names its line, and writes nothing', async () => {
        const cases: [string, RegExp][] = [
          [JOURNAL_CSV.replace('450.5,,"Food', '450.555,,"Food'), /^line 6: amount "450.555"/],
          [
            JOURNAL_CSV.replace('S2,2024-01-15,20,1000,500', 'S2,2024-01-15,20,1000,499'),
            /^line 4 \(entry S2, 2024-01-15\): lines do not balance/,
          ],
          [
            JOURNAL_CSV.replace('S2,2024-01-15,20,1000,500', 'S2,2024-01-15,20,1999,500'),
            /^line 5 \(entry S2, 2024-01-15, its 2nd line\): unknown account 1999/,
          ],
          [JOURNAL_CSV.replace('2024-02-12,10,5000', '2024-02-31,10,5000'), /^line 6: date "2024-02-31"/],
        ];
        for (const [csv, pattern] of cases) {
          const err = await importLedgerCsv(store, csv, { reference: REFERENCE_CSV }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).to.be.instanceOf(CsvImportError);
          expect((err as Error).message).to.match(pattern);
          expect(await store.isEmpty()).to.equal(true);
        }
        const refErr = await importLedgerCsv(store, JOURNAL_CSV, {
          reference: REFERENCE_CSV.replace('account,5000,1,Food Cost,COGS', 'account,5000,1,Food Cost,Nonsense'),
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((refErr as Error).message).to.match(/^reference line 8: account 5000: unknown type "Nonsense"/);
        expect(await store.isEmpty()).to.equal(true);
      });
    });

    describe('pre-aggregates agree with a direct scan', () => {
      it('on a seeded random ledger, for random ranges and filters', async () => {
        const batch = randomLedger(12345, 3000);
        await store.load(batch.entries!.length ? { ...batch, entries: batch.entries!.slice(0, 1500) } : batch);
        await store.load({ entries: batch.entries!.slice(1500) }); // a second batch merges into existing pre-aggregates
        const rnd = seededRandom(99);
        for (let i = 0; i < 40; i++) {
          const query = randomQuery(rnd);
          const fast = await store.sumPnlByAccountMonth(query);
          expect(fast, JSON.stringify(query)).to.deep.equal(await store.scanPnlByAccountMonth(query));
          expect(fast, JSON.stringify(query)).to.deep.equal(expectedTotals(batch, query));
        }
      });
    });
  });
}

contract('DuckDB', () => DuckDbLedgerStore.open(':memory:'));

describe('DuckDB adapter: in-memory pre-aggregates', function () {
  this.timeout(60_000);
  it('stay in step with loads: after every load they equal the SQL pre-aggregates, a direct scan and the expected sums', async () => {
    const store = await DuckDbLedgerStore.open(':memory:');
    try {
      await store.migrate();
      const batch = randomLedger(4242, 2400);
      const entries = batch.entries!;
      const rnd = seededRandom(7);
      const check = async (loaded: LedgerBatch) => {
        for (let i = 0; i < 15; i++) {
          const query = randomQuery(rnd);
          const fromMemory = await store.sumPnlByAccountMonth(query);
          expect(fromMemory, JSON.stringify(query)).to.deep.equal(await store.sumPnlBySql(query));
          expect(fromMemory, JSON.stringify(query)).to.deep.equal(await store.scanPnlByAccountMonth(query));
          expect(fromMemory, JSON.stringify(query)).to.deep.equal(expectedTotals(loaded, query));
        }
      };
      await store.load({ ...batch, entries: entries.slice(0, 800) });
      await check({ ...batch, entries: entries.slice(0, 800) }); // builds the index from balance_daily
      await store.load({ entries: entries.slice(800, 1600) }); // folded into the built index
      const unbalanced = { ...entries[0]!, lines: [{ ...entries[0]!.lines[0]!, cents: 1 }] };
      await store.load({ entries: [...entries.slice(1600), unbalanced] }).then(
        () => expect.fail('loaded'),
        () => undefined,
      );
      await check({ ...batch, entries: entries.slice(0, 1600) }); // a refused load changes nothing
      // A query concurrent with a load leaves nothing stale behind.
      const racing = store.sumPnlByAccountMonth(randomQuery(rnd));
      await store.load({ entries: entries.slice(1600) });
      await racing;
      await check(batch);
    } finally {
      await store.close();
    }
  });
});

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

  it("a database made by an earlier version loses its per-line options table and its entries' date index when opened, keeping its figures", async () => {
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
      WHERE relname IN ('journal_line_options', 'journal_line_options_line', 'journal_entries_company_date') ORDER BY 1`)
      ).rows.map((r) => r.relname);
    try {
      // What an earlier version made: options per line, beside the tag sets', and an index by company and date.
      await admin.query('CREATE TABLE journal_line_options (line_id BIGINT NOT NULL, option_id VARCHAR(32) NOT NULL)');
      await admin.query('CREATE INDEX journal_line_options_line ON journal_line_options (line_id)');
      await admin.query(
        `INSERT INTO journal_line_options SELECT l.id, o.option_id FROM journal_lines l JOIN tag_set_options o ON o.tag_set_id = l.tag_set_id`,
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
  });
});

describe('DuckDB adapter: link secret persistence', () => {
  it('a DuckDB file keeps its link secret across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-secret-'));
    try {
      const first = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'));
      await first.migrate();
      const secret = await first.linkSecret();
      await first.close();
      const second = await DuckDbLedgerStore.open(join(dir, 'ledger.duckdb'));
      expect(await second.linkSecret()).to.equal(secret);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DuckDB adapter: a file whose balance tables still have a PRIMARY KEY', function () {
  this.timeout(60_000);
  // The shape of balance_monthly / balance_daily before they lost their key (an ART index DuckDB holds in memory
  // whole).
  const KEYED = {
    balance_monthly: 'month',
    balance_daily: 'day',
  } as const;
  const query = async (path: string, sql: string): Promise<Record<string, unknown>[]> => {
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    try {
      return (await conn.runAndReadAll(sql)).getRowObjectsJS();
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  };
  const keyedTables = async (path: string): Promise<string[]> =>
    (
      await query(
        path,
        `SELECT table_name AS t FROM duckdb_constraints()
    WHERE constraint_type = 'PRIMARY KEY' AND table_name LIKE 'balance_%' ORDER BY 1`,
      )
    ).map((r) => String(r.t));

  it('is rebuilt without the key when opened, keeping its sums; later loads fold into them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-keyed-'));
    const path = join(dir, 'ledger.duckdb');
    const batch = randomLedger(4242, 1200);
    const entries = batch.entries!;
    try {
      const first = await DuckDbLedgerStore.open(path);
      await first.migrate();
      await first.load({ ...batch, entries: entries.slice(0, 600) });
      await first.close();
      // The file as an older version left it: the same rows, in tables keyed by (company, period, location, account,
      // tag set).
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      for (const [table, period] of Object.entries(KEYED)) {
        await conn.run(`CREATE TABLE old_${table} (company_id INTEGER NOT NULL, ${period} DATE NOT NULL, location_id INTEGER NOT NULL,
          account_id INTEGER NOT NULL, tag_set_id INTEGER NOT NULL, cents BIGINT NOT NULL,
          PRIMARY KEY (company_id, ${period}, location_id, account_id, tag_set_id))`);
        await conn.run(`INSERT INTO old_${table} SELECT * FROM ${table}`);
        await conn.run(`DROP TABLE ${table}`);
        await conn.run(`ALTER TABLE old_${table} RENAME TO ${table}`);
      }
      conn.closeSync();
      instance.closeSync();
      expect(await keyedTables(path)).to.deep.equal(['balance_daily', 'balance_monthly']);

      const store = await DuckDbLedgerStore.open(path);
      try {
        await store.migrate();
        await store.migrate(); // a second open finds nothing to rebuild
        await store.load({ entries: entries.slice(600) }); // the same keys again: folded into the rows, not added beside them
        await expectOracleFigures(
          batch,
          11,
          15,
          (q) => store.sumPnlBySql(q),
          (q) => store.sumPnlByAccountMonth(q),
        );
      } finally {
        await store.close();
      }
      expect(await keyedTables(path)).to.deep.equal([]);
      for (const [table, period] of Object.entries(KEYED)) {
        const [repeated] = await query(
          path,
          `SELECT CAST(COUNT(*) - COUNT(DISTINCT (company_id, ${period}, location_id, account_id, tag_set_id)) AS INTEGER) AS n FROM ${table}`,
        );
        expect(repeated?.n, `keys of ${table} held by more than one row`).to.equal(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('demo ledger generator', () => {
  it('is deterministic: same seed, same batch; another seed, another batch', () => {
    const opts = { from: '2023-01-01', to: '2024-12-31', locations: 3, ticketsPerDay: 2 };
    const a = generateDemoLedger({ ...opts, seed: 7 });
    expect(generateDemoLedger({ ...opts, seed: 7 })).to.deep.equal(a);
    expect(generateDemoLedger({ ...opts, seed: 8 }).entries).to.not.deep.equal(a.entries);
    for (const e of a.entries!) expect(e.lines.reduce((s, l) => s + l.cents, 0)).to.equal(0);
    expect(a.entries!.every((e) => e.lines.every((l) => Number.isSafeInteger(l.cents)))).to.equal(true);
    expect(a.accounts!.some((x) => x.parentId === 6100 && x.name === 'Rent')).to.equal(true);
    expect(
      a.accounts!.filter((x) => x.type !== 'Bank' && x.standardAccountId === null).length,
    ).to.be.greaterThanOrEqual(2);
  });

  it('covers two full calendar years ending with the current year by default', () => {
    const b = generateDemoLedger({ to: '2025-03-15', locations: 1, ticketsPerDay: 1 });
    const dates = b.entries!.map((e) => e.date).sort();
    expect(dates[0]).to.equal('2023-01-01');
    expect(dates.at(-1)).to.equal('2025-03-15');
  });
});
