/**
 * DATABASE_READ_URL: an instance whose reports read a real streaming standby (pg_basebackup -R of the test's primary,
 * loopback) while imports, keys and the change log stay on the primary. Loads through another instance reach its
 * reports once the standby replays them; with replay paused it keeps showing what it showed (never a mix, never older,
 * a company evicted meanwhile included), a key revoked on the primary is refused at once, and after replay resumes
 * it catches up. Figures are checked against the JavaScript oracle.
 */
import { expect } from 'chai';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import type { LedgerBatch, PnlQuery } from '../../../src/domain/ledger.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { startStandby, type PostgresStandby } from '../../../scripts/lib/postgres-standby.ts';
import { RANDOM_COMPANY, expectedTotals, randomLedger } from '../../support/random-store-ledger.ts';

const YEAR: PnlQuery = {
  companyId: RANDOM_COMPANY,
  from: '2023-01-01',
  to: '2025-06-30',
  locationIds: [],
  optionGroups: [],
};

async function eventually(check: () => Promise<void>, ms = 15_000): Promise<void> {
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

(skipPostgres ? describe.skip : describe)('DATABASE_READ_URL: reports from a streaming standby', function () {
  this.timeout(180_000);
  let primary: PostgresServer;
  let standby: PostgresStandby;
  let writer: PostgresLedgerStore;
  let reader: PostgresLedgerStore;
  const batch = randomLedger(7373, 1200);
  const entries = batch.entries!.map((e, i) => ({ ...e, ref: `S${i}` }));
  const upTo = (k: number): LedgerBatch => ({ ...batch, entries: entries.slice(0, k) });

  before(async () => {
    primary = await startPostgresServer('standby_test');
    writer = new PostgresLedgerStore(primary.url);
    await writer.migrate();
    await writer.load(upTo(300));
    standby = await startStandby(primary);
    reader = new PostgresLedgerStore(primary.url, { readUrl: standby.urlOf('standby_test') });
  });
  after(async () => {
    await Promise.all([writer?.close(), reader?.close()]);
    await standby?.destroy();
    await primary?.destroy();
  });

  it('reads the ledger from the standby and shows each load once the standby has replayed it', async () => {
    expect(await reader.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(300), YEAR));
    await writer.load({ entries: entries.slice(300, 600) });
    await eventually(
      async () => void expect(await reader.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(600), YEAR)),
    );
  });

  it(
    'the standby behind: the figures shown stay, a key revoked on the primary is refused at once; then caught ' + 'up',
    async () => {
      const before = expectedTotals(upTo(600), YEAR);
      await eventually(async () => void expect(await reader.sumPnlByAccountMonth(YEAR)).to.deep.equal(before));
      const hash = 'cd'.repeat(32);
      const key = await writer.createApiKey({ name: 'standby', keyHash: hash, companyIds: [RANDOM_COMPANY] });
      expect((await reader.findApiKeyByHash(hash))?.id).to.equal(key.id);

      await standby.pauseReplay();
      try {
        await writer.load({ entries: entries.slice(600, 900) });
        await writer.revokeApiKey(key.id);
        // The key lives on the primary: refused by the reader although the standby has not replayed the revocation.
        await eventually(
          async () => void expect((await reader.findApiKeyByHash(hash))?.revokedAt).to.be.instanceOf(Date),
        );
        // The reader heard of the load (NOTIFY on the primary), the standby has not replayed it: the old figures stay.
        for (let i = 0; i < 20; i++) {
          expect(await reader.sumPnlByAccountMonth(YEAR)).to.deep.equal(before);
          await new Promise((r) => setTimeout(r, 25));
        }
      } finally {
        await standby.resumeReplay();
      }
      await eventually(
        async () => void expect(await reader.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(900), YEAR)),
      );
    },
  );

  it('a company evicted while the standby is behind is rebuilt as the standby holds it, then catches up', async () => {
    // A reader with a budget for one company: a second company's report evicts the first.
    const other: LedgerBatch = {
      companies: [{ id: 9, name: 'Other Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
      locations: [{ id: 91, companyId: 9, name: 'Other site' }],
      accounts: [
        {
          id: 9100,
          companyId: 9,
          number: '9100',
          name: 'Bank',
          type: 'Bank',
          parentId: null,
          isActive: true,
          standardAccountId: null,
        },
        {
          id: 9400,
          companyId: 9,
          number: '9400',
          name: 'Sales',
          type: 'Income',
          parentId: null,
          isActive: true,
          standardAccountId: null,
        },
      ],
      entries: [
        {
          companyId: 9,
          locationId: 91,
          date: '2024-02-02',
          lines: [
            { accountId: 9400, cents: -12_345 },
            { accountId: 9100, cents: 12_345 },
          ],
        },
      ],
    };
    await writer.load(other);
    const otherYear = { ...YEAR, companyId: 9 };
    const tiny = new PostgresLedgerStore(primary.url, { readUrl: standby.urlOf('standby_test'), indexMemoryBytes: 1 });
    try {
      const shown = expectedTotals(upTo(900), YEAR);
      await eventually(async () => void expect(await tiny.sumPnlByAccountMonth(otherYear)).to.have.length(1));
      expect(await tiny.sumPnlByAccountMonth(YEAR)).to.deep.equal(shown);
      await standby.pauseReplay();
      try {
        await writer.load({ entries: entries.slice(900, 1200) });
        expect(await tiny.sumPnlByAccountMonth(otherYear)).to.deep.equal([
          { accountId: 9400, month: '2024-02', cents: -12_345 },
        ]);
        expect(tiny.indexStats()).to.include({ companies: 1 });
        // Rebuilt from the paused standby: what it showed, not a mix and not older.
        expect(await tiny.sumPnlByAccountMonth(YEAR)).to.deep.equal(shown);
        expect(tiny.indexStats().rebuilds).to.be.greaterThan(0);
      } finally {
        await standby.resumeReplay();
      }
      await eventually(
        async () => void expect(await tiny.sumPnlByAccountMonth(YEAR)).to.deep.equal(expectedTotals(upTo(1200), YEAR)),
      );
    } finally {
      await tiny.close();
    }
  });
});
