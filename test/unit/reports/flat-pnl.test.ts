/** The pure engine on small inline ledgers: periods, ranges, hierarchy, mapping, order, zero rows. */
import { expect } from 'chai';
import type { GetFlatRequest } from '../../../src/contract/dtos.ts';
import { AppError } from '../../../src/errors/app-error.ts';
import { buildFlatPnl } from '../../../src/reports/flat-pnl.ts';
import { resolveFlatOptions } from '../../../src/reports/flat-options.ts';
import { monthlyPeriods } from '../../../src/reports/periods.ts';
import { resolveRelativeRange } from '../../../src/reports/relative-ranges.ts';
import { formatIsoDate } from '../../../src/scalars/dates.ts';
import type { Account, AccountMonthTotal, CompanyCatalog } from '../../../src/domain/ledger.ts';

const d = (iso: string) => {
  const [year, month, day] = iso.split('-').map(Number);
  return { year: year!, month: month!, day: day! };
};
const range = (r: { from: ReturnType<typeof d>; to: ReturnType<typeof d> }) => [
  formatIsoDate(r.from),
  formatIsoDate(r.to),
];

const account = (
  id: number,
  number: string | null,
  name: string,
  type: Account['type'],
  parentId: number | null = null,
  standardAccountId: number | null = null,
): Account => ({
  id,
  companyId: 7,
  number,
  name,
  type,
  parentId,
  isActive: true,
  standardAccountId,
});

const catalog: CompanyCatalog = {
  company: { id: 7, name: 'Seven', baseCurrency: 'USD', fiscalYearStartMonth: 4, timeZone: 'Pacific/Auckland' },
  locations: [{ id: 1, companyId: 7, name: 'Main' }],
  accounts: [
    account(1, '1000', 'Cash', 'Bank'),
    account(2, '4000', 'Sales', 'Income', null, 100),
    account(3, '6000', 'Occupancy', 'Expense'),
    account(4, '6010', 'Rent', 'Expense', 3, 200),
    account(5, null, 'Sundry', 'Expense'),
    account(6, '6100', 'Advertising', 'Expense', null, 300),
    account(7, '900', 'Bank Fees', 'Expense'),
  ],
  standardAccounts: [
    { id: 100, companyId: 7, number: '40', name: 'Revenue', type: 'Income', parentId: null, sortOrder: 1 },
    { id: 200, companyId: 7, number: '61', name: 'Facilities', type: 'Expense', parentId: null, sortOrder: 3 },
    { id: 300, companyId: 7, number: '60', name: 'Marketing', type: 'Expense', parentId: null, sortOrder: 2 },
  ],
  trackingCategories: [],
  trackingOptions: [],
};

const request: GetFlatRequest = {
  CompanyId: 7,
  UseCustomDateRange: true,
  StartDate: '2024-01-10',
  EndDate: '2024-03-05',
  IncludeComputedColumns: true,
};
const totals: AccountMonthTotal[] = [
  { accountId: 2, month: '2024-01', cents: -100_000 },
  { accountId: 4, month: '2024-01', cents: 30_000 },
  { accountId: 3, month: '2024-02', cents: 5_000 },
  { accountId: 5, month: '2024-02', cents: 1_234 },
  { accountId: 6, month: '2024-03', cents: 70_000 },
  { accountId: 7, month: '2024-03', cents: 0 },
  { accountId: 1, month: '2024-03', cents: 99_999 },
];

function build(overrides: GetFlatRequest = {}) {
  const options = resolveFlatOptions({ ...request, ...overrides }, catalog, () => d('2024-06-15'));
  return buildFlatPnl(catalog, options, totals);
}
const expenseNames = (report: ReturnType<typeof build>) =>
  report.rows.filter((r) => r.section === 'Expenses' && r.rowType === 'Account').map((r) => r.rowName);

describe('P&L engine', () => {
  describe('periods', () => {
    it('When the range starts and ends mid-month, then the first and last months are clipped', () => {
      const periods = monthlyPeriods({ from: d('2024-01-10'), to: d('2024-03-05') });
      expect(periods.map((p) => [p.label, formatIsoDate(p.from), formatIsoDate(p.to)])).to.deep.equal([
        ['Jan 2024', '2024-01-10', '2024-01-31'],
        ['Feb 2024', '2024-02-01', '2024-02-29'],
        ['Mar 2024', '2024-03-01', '2024-03-05'],
      ]);
    });

    it('When the range crosses a year end, then months continue into the next year', () => {
      expect(monthlyPeriods({ from: d('2023-12-31'), to: d('2024-01-01') }).map((p) => p.key)).to.deep.equal([
        '2023-12',
        '2024-01',
      ]);
    });
  });

  describe('relative ranges', () => {
    const today = d('2024-05-20');
    const cases: [Parameters<typeof resolveRelativeRange>[0], string, string][] = [
      ['ThisMonth', '2024-05-01', '2024-05-31'],
      ['ThisMonthToDate', '2024-05-01', '2024-05-20'],
      ['LastMonth', '2024-04-01', '2024-04-30'],
      ['ThisCalendarQuarter', '2024-04-01', '2024-06-30'],
      ['ThisCalendarQuarterToDate', '2024-04-01', '2024-05-20'],
      ['LastCalendarQuarter', '2024-01-01', '2024-03-31'],
      ['ThisCalendarYear', '2024-01-01', '2024-12-31'],
      ['ThisCalendarYearToDate', '2024-01-01', '2024-05-20'],
      ['LastCalendarYear', '2023-01-01', '2023-12-31'],
      ['LastCalendarYearToDate', '2023-01-01', '2023-05-20'],
      ['ThisFiscalQuarter', '2024-04-01', '2024-06-30'],
      ['LastFiscalQuarter', '2024-01-01', '2024-03-31'],
      ['ThisFiscalYear', '2024-04-01', '2025-03-31'],
      ['ThisFiscalYearToDate', '2024-04-01', '2024-05-20'],
      ['LastFiscalYear', '2023-04-01', '2024-03-31'],
      ['Last3Months', '2024-02-01', '2024-04-30'],
      ['Last6Months', '2023-11-01', '2024-04-30'],
      ['Last12Months', '2023-05-01', '2024-04-30'],
    ];
    for (const [token, from, to] of cases) {
      it(`When today is 2024-05-20 and the fiscal year starts in April, then ${token} is ${from} .. ${to}`, () => {
        expect(range(resolveRelativeRange(token, today, 4))).to.deep.equal([from, to]);
      });
    }

    it('When today is in January, then a fiscal year starting in April began the previous April', () => {
      expect(range(resolveRelativeRange('ThisFiscalYear', d('2024-01-15'), 4))).to.deep.equal([
        '2023-04-01',
        '2024-03-31',
      ]);
    });

    it('When today is Feb 29, then LastCalendarYearToDate ends Feb 28 of the previous year', () => {
      expect(range(resolveRelativeRange('LastCalendarYearToDate', d('2024-02-29'), 1))).to.deep.equal([
        '2023-01-01',
        '2023-02-28',
      ]);
    });

    it('When no custom range is asked, then the range is ThisCalendarYearToDate in the company time zone', () => {
      const options = resolveFlatOptions({ CompanyId: 7 }, catalog, () => d('2024-06-15'));
      expect(range(options.range)).to.deep.equal(['2024-01-01', '2024-06-15']);
      expect(options.relativeDateRange).to.equal('ThisCalendarYearToDate');
    });
  });

  describe('rows', () => {
    it(
      'When an account has a parent, then FullName is the path and Level its depth; parents show only their own ' +
        'postings',
      () => {
        const rent = build().rows.find((r) => r.rowName === '6010 Rent')!;
        expect(rent.fullName).to.equal('Expenses:Occupancy:Rent');
        expect(rent.level).to.equal(1);
        expect(build().rows.find((r) => r.rowName === '6000 Occupancy')!.cents).to.deep.equal([0, 5_000, 0, 5_000]);
      },
    );

    it(
      'When an account has no activity or only zero sums, then it has no row; balance-sheet accounts never ' + 'appear',
      () => {
        const names = build().rows.map((r) => r.rowName);
        expect(names).to.not.include('900 Bank Fees');
        expect(names).to.not.include('1000 Cash');
      },
    );

    it('When OrderBy is Default, then numbers compare numerically and unnumbered accounts come last', () => {
      expect(expenseNames(build())).to.deep.equal(['6000 Occupancy', '6010 Rent', '6100 Advertising', 'Sundry']);
    });

    it(
      'When OrderBy is AccountName, AmountDescending or AmountAscending, then rows sort within the section ' + 'only',
      () => {
        expect(expenseNames(build({ OrderBy: 'AccountName' }))).to.deep.equal([
          '6100 Advertising',
          '6000 Occupancy',
          '6010 Rent',
          'Sundry',
        ]);
        expect(expenseNames(build({ OrderBy: 'AmountDescending' }))).to.deep.equal([
          '6100 Advertising',
          '6010 Rent',
          '6000 Occupancy',
          'Sundry',
        ]);
        expect(expenseNames(build({ OrderBy: 'AmountAscending' }))).to.deep.equal([
          'Sundry',
          '6000 Occupancy',
          '6010 Rent',
          '6100 Advertising',
        ]);
        expect(
          build({ OrderBy: 'AmountAscending' })
            .rows.map((r) => r.rowType)
            .slice(-1),
        ).to.deep.equal(['Computed']);
      },
    );

    it(
      'When accounts are mapped, then rows follow the standard chart, its SortOrder, and unmapped accounts land ' +
        'in Unmapped <Type> last',
      () => {
        const report = build({ UseAccountMapping: true });
        expect(expenseNames(report)).to.deep.equal(['60 Marketing', '61 Facilities', 'Unmapped Expense']);
        expect(report.rows.find((r) => r.rowName === 'Unmapped Expense')!.cents).to.deep.equal([0, 6_234, 0, 6_234]);
        expect(report.rows.find((r) => r.rowName === 'Net Income')!.cents).to.deep.equal(
          build().rows.find((r) => r.rowName === 'Net Income')!.cents,
        );
      },
    );

    it(
      "When a store's frozen catalog is replaced by one renaming an account, then the next report shows the new " +
        'name (row keys are kept per catalog, never across catalogs)',
      () => {
        const frozen = structuredClone(catalog);
        Object.freeze(frozen);
        const options = resolveFlatOptions(request, frozen, () => d('2024-06-15'));
        const names = (c: CompanyCatalog) => buildFlatPnl(c, options, totals).rows.map((r) => r.fullName);
        expect(names(frozen)).to.include('Expenses:Occupancy:Rent');
        expect(names(frozen)).to.deep.equal(names(frozen));
        const renamed = structuredClone(catalog);
        renamed.accounts = renamed.accounts.map((a) => (a.id === 3 ? { ...a, name: 'Premises' } : a));
        Object.freeze(renamed);
        expect(names(renamed)).to.include('Expenses:Premises:Rent').and.include('Expenses:Premises');
        expect(names(renamed)).to.not.include('Expenses:Occupancy');
      },
    );

    it(
      'When mapped accounts sum beyond the safe integers on the way but not in the end, then the cell is still ' +
        'exact',
      () => {
        const max = Number.MAX_SAFE_INTEGER;
        const options = resolveFlatOptions({ ...request, UseAccountMapping: true }, catalog, () => d('2024-06-15'));
        // Unmapped Expense gathers Occupancy (3), Sundry (5) and Bank Fees (7): max + 2 is past the safe integers.
        const report = buildFlatPnl(catalog, options, [
          { accountId: 3, month: '2024-01', cents: max },
          { accountId: 5, month: '2024-01', cents: 2 },
          { accountId: 7, month: '2024-01', cents: -max },
        ]);
        expect(report.rows.find((r) => r.rowName === 'Unmapped Expense')!.cents).to.deep.equal([2, 0, 0, 2]);
      },
    );

    it('When there is a single period, then no Total column is added even with IncludeComputedColumns', () => {
      const report = build({ StartDate: '2024-01-01', EndDate: '2024-01-31' });
      expect(report.columnNames).to.deep.equal(['Jan 2024']);
    });

    it('When income is credited, then it shows positive; a loss shows as a negative Net Income', () => {
      const report = build();
      expect(report.rows.find((r) => r.rowName === '4000 Sales')!.cents).to.deep.equal([100_000, 0, 0, 100_000]);
      expect(report.rows.find((r) => r.rowName === 'Net Income')!.cents).to.deep.equal([
        70_000, -6_234, -70_000, -6_234,
      ]);
    });
  });

  describe('validation', () => {
    const failure = (overrides: GetFlatRequest) => {
      try {
        resolveFlatOptions({ ...request, ...overrides }, catalog, () => d('2024-06-15'));
      } catch (error) {
        if (error instanceof AppError) return error.fieldErrors.map((f) => [f.fieldName, f.errorCode]);
      }
      return [];
    };

    it('When a custom range lacks its dates, then both are named', () => {
      expect(failure({ StartDate: undefined, EndDate: undefined })).to.deep.equal([
        ['StartDate', 'NotEmpty'],
        ['EndDate', 'NotEmpty'],
      ]);
    });

    it('When a filter names an option of no category of the company, then Filters is named', () => {
      expect(failure({ Filters: ['0123456789abcdef0123456789abcdef'] })).to.deep.equal([['Filters', 'NotFound']]);
    });

    it('When StartDate equals EndDate, then the one-day range is accepted', () => {
      expect(failure({ StartDate: '2024-02-02', EndDate: '2024-02-02' })).to.deep.equal([]);
    });
  });
});
