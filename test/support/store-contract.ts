/**
 * The LedgerStore contract: one suite every adapter passes, run on DuckDB by test/unit/store/duckdb-store.test.ts and
 * on a real throwaway PostgreSQL server by test/system/store/postgres-store.test.ts.
 */
import { expect } from 'chai';
import { LedgerValidationError } from '../../src/store/ledger/errors.ts';
import { CsvImportError, importLedgerCsv } from '../../src/store/import/csv-import.ts';
import { seedDemoIfEmpty, seededRandom } from '../../src/store/demo-ledger.ts';
import type { AccountMonthTotal, LedgerBatch, PnlQuery } from '../../src/domain/ledger.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { AIRPORT, DELIVERY, DINE_IN, workedExampleBatch } from '../fixtures/worked-example.ts';
import { expectedTotals, randomLedger, randomQuery } from './random-store-ledger.ts';

export type TestStore = LedgerStore & { scanPnlByAccountMonth(q: PnlQuery): Promise<AccountMonthTotal[]> };

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

const REFERENCE_CSV = `${[
  'kind,id,company_id,name,type,number,parent_id',
  'standard_account_id,category_id,base_currency,time_zone',
].join(',')}
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
export async function expectOracleFigures(
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

export function contract(name: string, open: () => Promise<TestStore>): void {
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

      it(
        'shows reference data loaded after an earlier read (no stale catalog), and a company loaded after a ' + 'miss',
        async () => {
          expect((await store.getCatalog(1))!.locations).to.have.length(2);
          await store.load({
            locations: [{ id: 30, companyId: 1, name: 'Harbor' }],
            companies: [{ id: 99, name: 'Late Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
          });
          expect((await store.getCatalog(1))!.locations.map((l) => l.id)).to.deep.equal([10, 20, 30]);
          expect((await store.getCatalog(99))!.company.name).to.equal('Late Co');
        },
      );

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

      it(
        'refuses unknown references, two options of one category and bad dates, and keeps earlier data ' + 'intact',
        async () => {
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
        },
      );
    });

    describe('settings: report link secret', () => {
      it(
        'linkSecret() creates one random secret on first use and returns it ever after, even to concurrent ' +
          'callers',
        async () => {
          const concurrent = await Promise.all([store.linkSecret(), store.linkSecret(), store.linkSecret()]);
          expect(new Set(concurrent).size).to.equal(1);
          expect(concurrent[0]).to.match(/^[A-Za-z0-9_-]{43}$/);
          expect(await store.linkSecret()).to.equal(concurrent[0]);
          await store.migrate();
          expect(await store.linkSecret()).to.equal(concurrent[0]);
        },
      );
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
