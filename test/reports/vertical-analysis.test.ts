/** pnl-semantics §5 request G: the vertical-analysis engine with PercentOfIncome, over the real store's sums. */
import { expect } from 'chai';
import { buildFlatPnl } from '../../src/reports/flat-pnl.ts';
import { resolveFlatOptions } from '../../src/reports/flat-options.ts';
import { verticalAnalysis } from '../../src/reports/vertical-analysis.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { LedgerStore } from '../../src/store/ledger-store.ts';
import { workedExampleBatch } from '../fixtures/worked-example.ts';

describe('vertical analysis (pnl-semantics §5 G)', () => {
  let store: LedgerStore;
  before(async () => {
    store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
    await store.load(workedExampleBatch);
  });
  after(() => store.close());

  async function reportA() {
    const catalog = (await store.getCatalog(1))!;
    const options = resolveFlatOptions(
      {
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: '2024-01-01',
        EndDate: '2024-02-29',
        IncludeComputedColumns: true,
      },
      catalog,
      { year: 2024, month: 3, day: 15 },
    );
    const totals = await store.sumPnlByAccountMonth({
      companyId: 1,
      from: '2024-01-01',
      to: '2024-02-29',
      locationIds: [],
      optionGroups: [],
    });
    return buildFlatPnl(catalog, options, totals);
  }

  it('When PercentOfIncome is applied to request A, then every figure of table G is exact', async () => {
    const report = await reportA();
    const percents = verticalAnalysis(report, 'PercentOfIncome');
    const byName = Object.fromEntries(report.rows.map((row, i) => [row.rowName, percents[i]]));
    expect(byName['5000 Food Cost']).to.deep.equal([20.69, 30.0, 25.42]);
    expect(byName['Gross Profit']).to.deep.equal([79.31, 70.0, 74.58]);
    expect(byName['6000 Payroll']).to.deep.equal([17.24, 16.67, 16.95]);
    expect(byName['6100 Rent']).to.deep.equal([20.69, 20.0, 20.34]);
    expect(byName['Net Other Income']).to.deep.equal([0, -1.0, -0.51]);
    expect(byName['Net Income']).to.deep.equal([41.38, 32.33, 36.78]);
    expect(byName['Total Income']).to.deep.equal([100, 100, 100]);
  });

  it('When the base is 0 in a column, then that cell is null (not a division by zero)', async () => {
    const report = await reportA();
    const percents = verticalAnalysis(report, 'PercentOfRow');
    const interestIncome = report.rows.findIndex((r) => r.rowName === 'Total Other Income');
    expect(percents[interestIncome]).to.deep.equal([0, 100, 100]);
    const empty = verticalAnalysis(
      { ...report, rows: report.rows.map((r) => ({ ...r, cents: r.cents.map(() => 0) })) },
      'PercentOfExpense',
    );
    expect(empty.every((row) => row.every((cell) => cell === null))).to.equal(true);
  });
});
