/**
 * pnl-semantics §5, requests A to H, every figure exact, through every HTTP route: a suite each store runs
 * (test/wire/reports/worked-example.test.ts on DuckDB, test/system/reports/worked-example-postgres.test.ts).
 */
import { expect } from 'chai';
import type { GetFlatRequest } from '../../src/contract/dtos.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { AIRPORT, DINE_IN, EXPECTED_A, workedExampleBatch } from '../fixtures/worked-example.ts';
import { callFlat, figures, FLAT_ROUTES } from './flat-client.ts';
import { createTestApp, type TestApp } from './test-app.ts';

const JAN_1 = '/Date(1704067200000)/';
const FEB_29 = '/Date(1709164800000)/';

const A: GetFlatRequest = {
  CompanyId: 1,
  Locations: [],
  Filters: [],
  UseCustomDateRange: true,
  StartDate: JAN_1,
  EndDate: FEB_29,
  UseAccountMapping: false,
  IncludeComputedColumns: true,
  OrderBy: '',
};

/** A store for the suite, and what ends it. */
export type OpenedStore = { store: LedgerStore; done: () => Promise<void> };

export function workedExample(name: string, open: () => Promise<OpenedStore>): void {
  describe(`worked example (pnl-semantics §5) on ${name}`, function () {
    this.timeout(60_000);
    let t: TestApp;
    let done: () => Promise<void>;
    before(async () => {
      const opened = await open();
      done = opened.done;
      await opened.store.load(workedExampleBatch);
      t = await createTestApp({ store: opened.store });
    });
    after(() => done?.());

    for (const route of FLAT_ROUTES) {
      describe(route, () => {
        it('A: every row and figure of the table, in order, with the Total column', async () => {
          const { status, body } = await callFlat(t.app, route, A);
          expect(status).to.equal(200);
          expect(body.ReportModel.ReportHeader).to.equal('Profit and Loss');
          expect(body.ReportModel.BuildTime).to.be.a('number');
          expect(body.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024', 'Total']);
          expect(body.ReportModel.Rows.map((r) => [r.RowName, r.Values])).to.deep.equal(EXPECTED_A);
          expect(body.ReportModel.Rows.map((r) => r.RowType)).to.deep.equal([
            'Account',
            'Account',
            'SectionTotal',
            'Account',
            'SectionTotal',
            'Computed',
            'Account',
            'Account',
            'SectionTotal',
            'Computed',
            'Account',
            'SectionTotal',
            'Account',
            'SectionTotal',
            'Computed',
            'Computed',
          ]);
          expect(body.SelectedOptions).to.deep.equal({
            ReportType: 'ProfitAndLoss',
            DateFrequency: 'Monthly',
            UseAccountMapping: false,
            VerticalAnalysisType: 'None',
            IncludeComputedColumns: true,
            OrderBy: '',
            UseCustomDateRange: true,
            StartDate: JAN_1,
            EndDate: FEB_29,
            Filters: [],
            Locations: [],
          });
          expect(body.Url).to.match(
            /^http:\/\/127\.0\.0\.1:\d+\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\/[\w-]+\.[\w-]{43}$/,
          );
        });

        it('B: without IncludeComputedColumns there is no Total column', async () => {
          const { body } = await callFlat(t.app, route, { ...A, IncludeComputedColumns: false });
          expect(body.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024']);
          expect(body.ReportModel.Rows.map((r) => [r.RowName, r.Values])).to.deep.equal(
            EXPECTED_A.map(([n, v]) => [n, v.slice(0, 2)]),
          );
        });

        it('C: Locations=[20] keeps only the Airport lines; empty sections still total 0', async () => {
          const { body } = await callFlat(t.app, route, { ...A, Locations: [AIRPORT], IncludeComputedColumns: false });
          const f = figures(body);
          expect(f['4000 Sales']).to.deep.equal([450, 0]);
          expect(f['8000 Interest Expense']).to.deep.equal([0, 25]);
          expect(f['Net Income']).to.deep.equal([450, -25]);
          for (const gone of ['4100 Catering', '5000 Food Cost', '6000 Payroll', '6100 Rent', '7000 Interest Income'])
            expect(f).to.not.have.property(gone);
          expect(f['Total COGS']).to.deep.equal([0, 0]);
          expect(f['Total Expenses']).to.deep.equal([0, 0]);
          expect(body.SelectedOptions.Locations).to.deep.equal([AIRPORT]);
        });

        it('D: the DineIn filter keeps lines 1 and 7 only (untagged lines excluded)', async () => {
          const { body } = await callFlat(t.app, route, { ...A, Filters: [DINE_IN.toUpperCase()] });
          const f = figures(body);
          expect(f['4000 Sales']).to.deep.equal([1000, 1200, 2200]);
          expect(f['Net Income']).to.deep.equal([1000, 1200, 2200]);
          expect(body.SelectedOptions.Filters).to.deep.equal([DINE_IN]);
        });

        it('E: UseAccountMapping keys rows by the standard chart; totals unchanged', async () => {
          const { body } = await callFlat(t.app, route, { ...A, UseAccountMapping: true });
          const f = figures(body);
          expect(f['400 Revenue']).to.deep.equal([1450, 1500, 2950]);
          expect(f).to.not.have.property('4000 Sales');
          expect(f['500 Cost of Sales']).to.deep.equal([300, 450, 750]);
          expect(f['600 Labor']).to.deep.equal([250, 250, 500]);
          expect(f['610 Occupancy']).to.deep.equal([300, 300, 600]);
          expect(f['Net Income']).to.deep.equal([600, 485, 1085]);
        });

        it('F: AmountDescending puts Rent before Payroll inside Expenses; Default puts Payroll first', async () => {
          const expenses = (rows: { Section: string; RowType: string; RowName: string }[]) =>
            rows.filter((r) => r.Section === 'Expenses' && r.RowType === 'Account').map((r) => r.RowName);
          const desc = await callFlat(t.app, route, { ...A, OrderBy: 'AmountDescending' });
          expect(expenses(desc.body.ReportModel.Rows)).to.deep.equal(['6100 Rent', '6000 Payroll']);
          const byDefault = await callFlat(t.app, route, A);
          expect(expenses(byDefault.body.ReportModel.Rows)).to.deep.equal(['6000 Payroll', '6100 Rent']);
        });

        it('H: Locations=[99] → 400 naming Locations', async () => {
          const { status, body } = await callFlat(t.app, route, { ...A, Locations: [99] });
          expect(status).to.equal(400);
          expect(body.ResponseStatus!.Errors.map((e) => e.FieldName)).to.deep.equal(['Locations']);
        });

        it('H: StartDate after EndDate → 400 naming StartDate', async () => {
          const { status, body } = await callFlat(t.app, route, { ...A, StartDate: FEB_29, EndDate: JAN_1 });
          expect(status).to.equal(400);
          expect(body.ResponseStatus!.Errors.map((e) => e.FieldName)).to.deep.equal(['StartDate']);
        });

        it('H: a 31-character filter id → 400 naming Filters', async () => {
          const { status, body } = await callFlat(t.app, route, { ...A, Filters: [DINE_IN.slice(1)] });
          expect(status).to.equal(400);
          expect(body.ResponseStatus!.Errors.map((e) => e.FieldName)).to.deep.equal(['Filters']);
        });

        it('H: line 14 (2024-03-01) never appears in a range ending Feb 29, and does in March', async () => {
          const { body } = await callFlat(t.app, route, A);
          expect(figures(body)['4000 Sales']).to.deep.equal([1450, 1200, 2650]);
          const march = await callFlat(t.app, route, { ...A, StartDate: '2024-03-01', EndDate: '2024-03-31' });
          expect(figures(march.body)['4000 Sales']).to.deep.equal([999]);
        });
      });
    }
  });
}
