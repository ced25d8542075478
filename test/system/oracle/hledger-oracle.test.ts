/**
 * The independent oracle: a seeded random ledger of 12,000 entries is loaded into the real app and exported to an
 * hledger journal; the flat report's per-account per-month figures (and the Total column and Net Income) must equal
 * what `hledger incomestatement --flat` computes from the journal, exactly, as integer cents.
 *
 * The date range starts and ends mid-month, so the first and last month columns are clipped. hledger 1.25 widens
 * -b/-e to whole periods when a report interval (-M) is given, so the expected columns come from three hledger runs:
 * the clipped head month and the clipped tail month without an interval (exact -b/-e), and the whole months in
 * between with -M. The Total column is the sum of those (and, unfiltered, a fourth run over the exact range).
 *
 * Query mapping (see scripts/lib/hledger-journal.ts): posted = `status:*`; Locations=a,b = `tag:loc=^(a|b)$`;
 * Filters = one `tag:c<category>=^(opt1|opt2)$` term per tracking category (OR within, hledger ANDs tag: terms).
 *
 * hledger is required: the suite fails with a clear message when the binary is missing, unless SKIP_HLEDGER=1.
 * The PostgreSQL run needs PostgreSQL 15 binaries (see scripts/lib/postgres-server.ts) unless SKIP_POSTGRES=1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { LedgerBatch } from '../../../src/domain/ledger.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { openStore } from '../../../src/store/open-store.ts';
import {
  HLEDGER_BIN,
  hledgerAccountNames,
  hledgerQuery,
  hledgerVersion,
  parseIncomeStatementCsv,
  runHledger,
  toHledgerJournal,
} from '../../../scripts/lib/hledger-journal.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import {
  randomLedgerBatch,
  randomLedgerReference,
  type RandomLedgerOptions,
} from '../../../scripts/lib/random-ledger.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

const skipHledger = process.env.SKIP_HLEDGER === '1';

const LEDGER: RandomLedgerOptions = {
  seed: 20240917,
  entries: 12_000,
  startDate: '2023-01-01',
  endDate: '2024-03-31',
  locations: 4,
};
const FROM = '2023-02-14';
const TO = '2023-10-09';

const ref = randomLedgerReference(LEDGER);
const channel = ref.trackingOptions.filter((o) => o.categoryId === ref.trackingCategories[0]!.id);
const daypart = ref.trackingOptions.filter((o) => o.categoryId === ref.trackingCategories[1]!.id);

interface OracleCase {
  name: string;
  locations: number[];
  filters: string[];
}

const CASES: OracleCase[] = [
  { name: 'no filter', locations: [], filters: [] },
  { name: 'a location filter', locations: [2], filters: [] },
  { name: 'a tracking filter (one option)', locations: [], filters: [channel[1]!.id] },
  {
    name: 'locations and tracking options combined (OR within a category, AND across)',
    locations: [1, 3],
    filters: [channel[0]!.id, channel[2]!.id, daypart[3]!.id],
  },
];

// ---- calendar helpers (UTC, YYYY-MM-DD) ----
const DAY = 86_400_000;
const toDay = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY;
const fromDay = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
const addDays = (d: string, n: number) => fromDay(toDay(d) + n);
const firstOfMonth = (d: string) => `${d.slice(0, 7)}-01`;
const nextMonth = (d: string) => {
  const y = Number(d.slice(0, 4)),
    m = Number(d.slice(5, 7));
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
};
const MONTH_LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const monthLabel = (d: string) => `${MONTH_LABELS[Number(d.slice(5, 7)) - 1]} ${d.slice(0, 4)}`;

/** Cells per row name (hledger account name, or 'Net Income'), one per column: months, then Total. */
type Figures = Record<string, number[]>;

function withoutZeroRows(f: Figures): Figures {
  return Object.fromEntries(
    Object.entries(f)
      .filter(([, cells]) => cells.some((c) => c !== 0))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Runs at most two hledger processes at a time (each parses the whole journal: ~1.5 s of CPU). */
const hledgerSlots = (() => {
  let free = 2;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free--;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
})();

/**
 * The expected figures, computed by hledger from the journal: head month, whole months (-M), tail month; the Total
 * column is the sum of those columns, except for the unfiltered case where it is a separate exact-range hledger run.
 */
async function computeHledgerFigures(journal: string, c: OracleCase): Promise<{ columns: string[]; figures: Figures }> {
  const terms = hledgerQuery(ref, { locations: c.locations, filters: c.filters });
  const is = (args: string[]) =>
    hledgerSlots(async () =>
      parseIncomeStatementCsv(
        await runHledger(['incomestatement', '-f', journal, '--flat', '-O', 'csv', ...args, ...terms]),
      ),
    );
  const headEnd = nextMonth(FROM); // exclusive
  const tailStart = firstOfMonth(TO);
  const end = addDays(TO, 1); // hledger -e is exclusive
  if (headEnd >= tailStart) throw new Error('oracle range must span at least three months');
  const exactTotal = c.locations.length === 0 && c.filters.length === 0;
  const [head, middle, tail, total] = await Promise.all([
    is(['-b', FROM, '-e', headEnd]),
    is(['-M', '-b', headEnd, '-e', tailStart]),
    is(['-b', tailStart, '-e', end]),
    exactTotal ? is(['-b', FROM, '-e', end]) : undefined,
  ]);
  for (const p of [head, tail, total]) if (p) expect(p.columns, 'hledger single-period report').to.have.length(1);
  const months: string[] = [];
  for (let m = firstOfMonth(FROM); m <= TO; m = nextMonth(m)) months.push(m);
  expect(middle.columns, 'hledger -M columns').to.have.length(months.length - 2);
  const width = months.length + 1;
  const figures: Figures = {};
  const add = (name: string, cells: number[], offset: number) => {
    const row = (figures[name] ??= new Array<number>(width).fill(0));
    cells.forEach((v, i) => (row[offset + i]! += v));
  };
  let offset = 0;
  for (const p of [head, middle, tail]) {
    for (const rows of [p.revenues, p.expenses]) for (const [name, cells] of rows) add(name, cells, offset);
    add('Net Income', p.net, offset);
    offset += p.columns.length;
  }
  expect(offset).to.equal(months.length);
  if (total) {
    for (const rows of [total.revenues, total.expenses]) for (const [name, cells] of rows) add(name, cells, offset);
    add('Net Income', total.net, offset);
  } else {
    for (const row of Object.values(figures)) row[offset] = row.slice(0, offset).reduce((a, b) => a + b, 0);
  }
  return { columns: [...months.map(monthLabel), 'Total'], figures: withoutZeroRows(figures) };
}

/** hledger's answer does not depend on the store: computed once per case, shared by the DuckDB and PostgreSQL runs. */
const expectedCache = new Map<string, Promise<{ columns: string[]; figures: Figures }>>();
function hledgerFigures(journal: string, c: OracleCase) {
  let p = expectedCache.get(c.name);
  if (!p) expectedCache.set(c.name, (p = computeHledgerFigures(journal, c)));
  return p;
}

interface ReportRowJson {
  RowType: string;
  AccountNumber?: string;
  RowName: string;
  Values: number[];
}

/** The report's figures, keyed by the hledger account name of each Account row. */
async function reportFigures(
  app: TestApp,
  c: OracleCase,
): Promise<{ columns: string[]; figures: Figures; accountRows: number }> {
  const names = hledgerAccountNames(ref.accounts);
  const byNumber = new Map(ref.accounts.map((a) => [a.number, a.id]));
  const query = new URLSearchParams({
    CompanyId: String(ref.companyId),
    UseCustomDateRange: 'true',
    StartDate: FROM,
    EndDate: TO,
    IncludeComputedColumns: 'true',
  });
  if (c.locations.length > 0) query.set('Locations', c.locations.join(','));
  if (c.filters.length > 0) query.set('Filters', c.filters.join(','));
  const res = await request(app.app).get(`/v1/Reporting/ProfitAndLoss/Flat?${query}`).set('Accept', 'application/json');
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
  const model = res.body.ReportModel as { ColumnNames: string[]; Rows: ReportRowJson[] };
  const cents = (values: number[]) => values.map((v) => Math.round(v * 100));
  const figures: Figures = {};
  let accountRows = 0;
  for (const row of model.Rows) {
    if (row.RowType === 'Account') {
      const id = byNumber.get(row.AccountNumber ?? null);
      const name = id !== undefined ? names.get(id) : undefined;
      if (!name) throw new Error(`report row ${row.RowName} does not map to a ledger account`);
      expect(figures[name], `duplicate row for ${name}`).to.equal(undefined);
      figures[name] = cents(row.Values);
      accountRows++;
    } else if (row.RowType === 'Computed' && row.RowName === 'Net Income') {
      figures['Net Income'] = cents(row.Values);
    }
  }
  return { columns: model.ColumnNames, figures: withoutZeroRows(figures), accountRows };
}

function oracleCases(label: string, getApp: () => TestApp, getJournal: () => string, cases: OracleCase[]) {
  for (const c of cases) {
    it(`${label}: ${c.name} — per-account per-month figures equal hledger incomestatement`, async () => {
      const [expected, actual] = await Promise.all([hledgerFigures(getJournal(), c), reportFigures(getApp(), c)]);
      expect(actual.columns).to.deep.equal(expected.columns);
      expect(actual.accountRows, 'the case selects enough activity to be meaningful').to.be.greaterThan(5);
      expect(Object.keys(actual.figures)).to.deep.equal(Object.keys(expected.figures));
      for (const [name, cells] of Object.entries(expected.figures)) {
        expect(actual.figures[name], `${name} (cents per column: ${expected.columns.join(', ')})`).to.deep.equal(cells);
      }
    });
  }
}

(skipHledger ? describe.skip : describe)('hledger oracle: flat P&L vs hledger incomestatement', function () {
  this.timeout(120_000);
  let dir = '';
  let journal = '';
  let batch: LedgerBatch;

  before(async () => {
    const version = await hledgerVersion();
    if (!version) {
      throw new Error(
        `hledger is required for the oracle test but "${HLEDGER_BIN}" could not be run. Install it ` +
          '(apt-get install hledger; 1.25 or later), point HLEDGER at the binary, or set SKIP_HLEDGER=1 to skip.',
      );
    }
    batch = randomLedgerBatch(LEDGER);
    dir = mkdtempSync(join(tmpdir(), 'hledger-oracle-'));
    journal = join(dir, 'ledger.journal');
    writeFileSync(journal, toHledgerJournal(batch));
    // Start hledger now (two processes at a time) so that it runs while the stores load.
    for (const c of CASES) hledgerFigures(journal, c).catch(() => undefined);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the journal classifies accounts by their declared type: tags (not by English names)', async () => {
    // type:RX = revenue and expense accounts; the top-level names (Inc, Cogs, Exp, OthInc, OthExp) are not ones
    // hledger would guess, so only the `account … ; type:` directives can put them there.
    const listed = (await runHledger(['accounts', '-f', journal, 'type:RX'])).split('\n').filter(Boolean).sort();
    const names = hledgerAccountNames(ref.accounts);
    const pnl = ref.accounts.filter((a) => a.type !== 'Bank').map((a) => names.get(a.id)!);
    expect(listed).to.deep.equal([...new Set([...pnl, ...pnl.map((n) => n.split(':')[0]!)])].sort());
  });

  describe('DuckDB store (in memory)', () => {
    let app: TestApp;
    before(async () => {
      app = await createTestApp({ batch });
    });
    after(async () => app?.close());
    oracleCases(
      'duckdb',
      () => app,
      () => journal,
      CASES,
    );
  });

  (skipPostgres ? describe.skip : describe)('PostgreSQL store', () => {
    let server: PostgresServer | undefined;
    let store: LedgerStore | undefined;
    let app: TestApp;
    before(async function () {
      this.timeout(120_000);
      server = await startPostgresServer('oracle_test');
      store = await openStore({ databaseUrl: server.url, dataDir: '.' });
      await store.load(batch);
      app = await createTestApp({ store });
    });
    after(async () => {
      await store?.close();
      await server?.destroy();
    });
    oracleCases(
      'postgres',
      () => app,
      () => journal,
      CASES,
    );
  });
});
