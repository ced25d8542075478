/**
 * Deterministic demo ledger: "Harbor Bistro Group" (company 1), a restaurant group with several locations, a chart
 * with parent/child accounts (Occupancy:Rent), a standard chart mapping (two accounts left unmapped on purpose),
 * a "Channel" tracking category, and daily activity balanced against 1000 Cash. Seeded PRNG; no Math.random.
 */
import { isIsoDate, isoEpochDay, isoFromEpochDay, isoLastOfMonth } from '../scalars/dates.ts';
import type { Account, JournalEntryInput, LedgerBatch, StandardAccount } from '../domain/ledger.ts';
import type { LedgerStore } from './ledger/ledger-store.ts';

export const DEMO_COMPANY_ID = 1;
export const DEMO_CHANNEL = '6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60';
export const DEMO_OPTIONS = {
  DineIn: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  Delivery: 'f9e8d7c6b5a4938271605f4e3d2c1b0a',
  Takeout: '5c3e1a9f7b2d4e6f8a0b1c2d3e4f5a6b',
} as const;

export interface DemoOptions {
  seed?: number;
  /** Last day with activity (YYYY-MM-DD). Default: today (UTC). */
  to?: string;
  /** First day with activity. Default: January 1st two years before `to`'s year (two full years + year to date). */
  from?: string;
  /** Sales entries per location per day (default 4). Raise for volume tests (≈ entries/day/location). */
  ticketsPerDay?: number;
  /** Number of locations, 1-6 (default 4). */
  locations?: number;
}

/** mulberry32: small, fast, deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LOCATION_NAMES = ['Downtown', 'Airport', 'Harborfront', 'University', 'Old Town', 'Riverside'];

const std = (id: number, name: string, type: StandardAccount['type'], sortOrder: number): StandardAccount => ({
  id,
  companyId: DEMO_COMPANY_ID,
  number: String(id),
  name,
  type,
  parentId: null,
  sortOrder,
});
const STANDARD_ACCOUNTS: StandardAccount[] = [
  std(400, 'Revenue', 'Income', 10),
  std(500, 'Cost of Sales', 'COGS', 20),
  std(600, 'Labor', 'Expense', 30),
  std(610, 'Occupancy', 'Expense', 40),
  std(620, 'Marketing', 'Expense', 50),
  std(630, 'Other Operating Expenses', 'Expense', 60),
  std(700, 'Other Income', 'OtherIncome', 70),
  std(800, 'Interest', 'OtherExpense', 80),
];

const acct = (
  id: number,
  name: string,
  type: Account['type'],
  standardAccountId: number | null,
  parentId: number | null = null,
): Account => ({
  id,
  companyId: DEMO_COMPANY_ID,
  number: String(id),
  name,
  type,
  parentId,
  isActive: true,
  standardAccountId,
});
const ACCOUNTS: Account[] = [
  acct(1000, 'Cash', 'Bank', null),
  acct(4000, 'Food Sales', 'Income', 400),
  acct(4010, 'Beverage Sales', 'Income', 400),
  acct(4100, 'Catering', 'Income', 400),
  acct(4900, 'Refunds & Comps', 'Income', null), // unmapped on purpose
  acct(5000, 'Food Cost', 'COGS', 500),
  acct(5100, 'Beverage Cost', 'COGS', 500),
  acct(6000, 'Payroll', 'Expense', 600),
  acct(6010, 'Payroll Taxes', 'Expense', 600),
  acct(6100, 'Occupancy', 'Expense', 610),
  acct(6110, 'Rent', 'Expense', 610, 6100),
  acct(6120, 'Utilities', 'Expense', 610, 6100),
  acct(6200, 'Marketing', 'Expense', 620),
  acct(6300, 'Repairs & Maintenance', 'Expense', null), // unmapped on purpose
  acct(6400, 'Credit Card Fees', 'Expense', 630),
  acct(7000, 'Interest Income', 'OtherIncome', 700),
  acct(8000, 'Interest Expense', 'OtherExpense', 800),
];

export function generateDemoLedger(options: DemoOptions = {}): LedgerBatch {
  const to = options.to ?? new Date().toISOString().slice(0, 10);
  const from = options.from ?? `${Number(to.slice(0, 4)) - 2}-01-01`;
  if (!isIsoDate(from) || !isIsoDate(to) || from > to) throw new RangeError(`invalid demo range ${from}..${to}`);
  const rnd = seededRandom(options.seed ?? 20240101);
  const tickets = options.ticketsPerDay ?? 4;
  const locationCount = Math.max(1, Math.min(LOCATION_NAMES.length, options.locations ?? 4));
  const locations = LOCATION_NAMES.slice(0, locationCount).map((name, i) => ({
    id: 101 + i,
    companyId: DEMO_COMPANY_ID,
    name,
  }));
  const channels = [DEMO_OPTIONS.DineIn, DEMO_OPTIONS.DineIn, DEMO_OPTIONS.Delivery, DEMO_OPTIONS.Takeout];
  const between = (lo: number, hi: number) => Math.round(lo + rnd() * (hi - lo)); // cents
  const entries: JournalEntryInput[] = [];
  const post = (date: string, locationId: number, memo: string, lines: [number, number, string?][]) => {
    const total = lines.reduce((s, [, c]) => s + c, 0);
    entries.push({
      companyId: DEMO_COMPANY_ID,
      locationId,
      date,
      memo,
      lines: [
        ...lines.map(([accountId, cents, option]) => ({ accountId, cents, trackingOptionIds: option ? [option] : [] })),
        { accountId: 1000, cents: -total },
      ],
    });
  };

  for (let day = isoEpochDay(from); day <= isoEpochDay(to); day++) {
    const date = isoFromEpochDay(day);
    const dow = new Date(day * 86_400_000).getUTCDay();
    const dom = Number(date.slice(8, 10));
    const month = Number(date.slice(5, 7));
    const season = 1 + 0.15 * Math.sin(((month - 3) / 12) * 2 * Math.PI) + (dow === 5 || dow === 6 ? 0.3 : 0);
    for (const [i, loc] of locations.entries()) {
      const scale = (1 - i * 0.12) * season;
      let food = 0,
        bev = 0;
      for (let t = 0; t < tickets; t++) {
        const ch = channels[Math.floor(rnd() * channels.length)]!;
        const f = (between(40_000, 160_000) * scale) / Math.max(1, tickets / 4);
        const b = (between(10_000, 50_000) * scale) / Math.max(1, tickets / 4);
        const fc = Math.round(f),
          bc = Math.round(b);
        food += fc;
        bev += bc;
        post(date, loc.id, 'Daily sales', [
          [4000, -fc, ch],
          [4010, -bc, ch],
        ]);
      }
      post(date, loc.id, 'Purveyor invoices', [
        [5000, Math.round(food * (0.28 + rnd() * 0.06))],
        [5100, Math.round(bev * (0.22 + rnd() * 0.05))],
      ]);
      if (rnd() < 0.1)
        post(date, loc.id, 'Refund', [[4900, between(1_000, 8_000), channels[Math.floor(rnd() * channels.length)]]]);
      if (rnd() < 0.06)
        post(date, loc.id, 'Catering order', [[4100, -between(50_000, 400_000), DEMO_OPTIONS.Delivery]]);
      if (rnd() < 0.04) post(date, loc.id, 'Repairs', [[6300, between(5_000, 120_000)]]);
      if (dow === 5 && Math.floor(day / 7) % 2 === 0) {
        const gross = Math.round(between(900_000, 1_300_000) * (1 - i * 0.1));
        post(date, loc.id, 'Payroll', [
          [6000, gross],
          [6010, Math.round(gross * 0.0765)],
        ]);
      }
      if (dom === 1) post(date, loc.id, 'Rent', [[6110, 850_000 - i * 90_000]]);
      if (dom === 15) post(date, loc.id, 'Utilities', [[6120, between(90_000, 160_000)]]);
      if (dom === 10) post(date, loc.id, 'Marketing', [[6200, between(20_000, 80_000)]]);
      if (date === isoLastOfMonth(date)) post(date, loc.id, 'Card processing fees', [[6400, between(60_000, 110_000)]]);
    }
    if (date === isoLastOfMonth(date)) {
      post(date, locations[0]!.id, 'Bank interest', [[7000, -between(500, 3_000)]]);
      post(date, locations[0]!.id, 'Loan interest', [[8000, between(20_000, 30_000)]]);
    }
  }

  return {
    companies: [
      {
        id: DEMO_COMPANY_ID,
        name: 'Harbor Bistro Group',
        baseCurrency: 'USD',
        fiscalYearStartMonth: 1,
        timeZone: 'America/New_York',
      },
    ],
    locations,
    standardAccounts: STANDARD_ACCOUNTS,
    accounts: ACCOUNTS,
    trackingCategories: [{ id: DEMO_CHANNEL, companyId: DEMO_COMPANY_ID, name: 'Channel' }],
    trackingOptions: Object.entries(DEMO_OPTIONS).map(([name, id]) => ({ id, categoryId: DEMO_CHANNEL, name })),
    entries,
  };
}

/** A calendar date (YYYY-MM-DD) as seen in the given IANA time zone. */
export function dateInTimeZone(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * Loads the demo ledger (activity up to `today`: a YYYY-MM-DD date, or an instant read in the demo company's time zone)
 * when the store holds no company. Returns true if it loaded.
 */
export async function seedDemoIfEmpty(
  store: LedgerStore,
  today: string | Date,
  options: Omit<DemoOptions, 'to'> = {},
): Promise<boolean> {
  if (!(await store.isEmpty())) return false; // the usual restart: skip generating the ledger
  const to = typeof today === 'string' ? today : dateInTimeZone(today, 'America/New_York');
  return store.loadIfEmpty(generateDemoLedger({ ...options, to })); // decided again under the load lock
}
