/**
 * A seeded random ledger for the oracle test and the benchmarks (not a test file).
 *
 * One company, several locations, a chart with all five P&L types (some accounts nested up to three levels), a
 * balancing Bank account, two tracking categories with options, and N journal entries spread over a date span.
 * Each entry has 1–3 P&L lines, each tagged with 0–2 tracking options (at most one per category), some lines at a
 * location other than the entry's, a few contra amounts, a few unposted entries, plus one balancing Bank line.
 * Amounts are integer cents. Deterministic: the same options give the same ledger (sfc32 PRNG; no Math.random).
 *
 * For large sizes, `randomLedgerEntries` streams entries one by one (the benchmarks write them as CSV files).
 */
import type {
  Account,
  AccountType,
  Company,
  JournalEntryInput,
  JournalLineInput,
  LedgerBatch,
  Location,
  TrackingCategory,
  TrackingOption,
} from '../../src/domain/ledger.ts';

export interface RandomLedgerOptions {
  seed: number;
  /** Number of journal entries. */
  entries: number;
  /** First and last possible entry dates (inclusive). Default 2023-01-01 .. 2024-12-31. */
  startDate?: string;
  endDate?: string;
  /** Number of locations (ids 1..n). Default 4. */
  locations?: number;
  /** Share of entries that are not posted (they must never count). Default 0.02. */
  unpostedRate?: number;
  companyId?: number;
}

export const RANDOM_COMPANY_ID = 1;
export const BANK_ACCOUNT_ID = 1000;

/** A small deterministic PRNG (sfc32, seeded through splitmix32). Returns floats in [0, 1). */
export function createRng(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(),
    b = split(),
    c = split(),
    d = split();
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** [id, name, type, parentId] — ids equal account numbers. Parents share their child's type. */
const CHART: ReadonlyArray<readonly [number, string, AccountType, number | null]> = [
  [BANK_ACCOUNT_ID, 'Operating Bank', 'Bank', null],
  [4000, 'Sales', 'Income', null],
  [4010, 'Food Sales', 'Income', 4000],
  [4020, 'Beverage Sales', 'Income', 4000],
  [4100, 'Catering', 'Income', null],
  [4900, 'Discounts', 'Income', null],
  [5000, 'Cost of Sales', 'COGS', null],
  [5010, 'Food Cost', 'COGS', 5000],
  [5020, 'Beverage Cost', 'COGS', 5000],
  [5100, 'Packaging', 'COGS', null],
  [6000, 'Payroll', 'Expense', null],
  [6010, 'Wages', 'Expense', 6000],
  [6020, 'Payroll Taxes', 'Expense', 6000],
  [6100, 'Occupancy', 'Expense', null],
  [6110, 'Rent', 'Expense', 6100],
  [6111, 'Common Area Charges', 'Expense', 6110],
  [6120, 'Utilities', 'Expense', 6100],
  [6200, 'Marketing', 'Expense', null],
  [6300, 'Repairs', 'Expense', null],
  [7000, 'Interest Income', 'OtherIncome', null],
  [7100, 'Gain on Sale', 'OtherIncome', null],
  [8000, 'Interest Expense', 'OtherExpense', null],
  [8100, 'Bank Fees', 'OtherExpense', null],
];

/** P&L accounts that lines are posted to, with a weight (bigger = more lines). Parents 4000, 5000 and 6110 post too. */
const POSTABLE: ReadonlyArray<readonly [number, number]> = [
  [4000, 3],
  [4010, 8],
  [4020, 5],
  [4100, 2],
  [4900, 1],
  [5000, 1],
  [5010, 6],
  [5020, 3],
  [5100, 2],
  [6010, 4],
  [6020, 2],
  [6110, 1],
  [6111, 1],
  [6120, 2],
  [6200, 2],
  [6300, 1],
  [7000, 1],
  [7100, 1],
  [8000, 1],
  [8100, 1],
];

const CREDIT_NORMAL = new Set<AccountType>(['Income', 'OtherIncome']);

/** Deterministic 32-hex id from a label and the seed (not cryptographic; unique enough for a fixture). */
function fakeGuid(label: string, seed: number): string {
  const rnd = createRng(seed ^ [...label].reduce((h, ch) => Math.imul(h ^ ch.charCodeAt(0), 16777619), 2166136261));
  let out = '';
  for (let i = 0; i < 4; i++)
    out += Math.floor(rnd() * 4294967296)
      .toString(16)
      .padStart(8, '0');
  return out;
}

export interface RandomLedgerReference {
  companyId: number;
  company: Company;
  locations: Location[];
  accounts: Account[];
  trackingCategories: TrackingCategory[];
  trackingOptions: TrackingOption[];
  /** Reference data only (no entries): the first batch to load. */
  batch: LedgerBatch;
}

export function randomLedgerReference(options: RandomLedgerOptions): RandomLedgerReference {
  const companyId = options.companyId ?? RANDOM_COMPANY_ID;
  const seed = options.seed;
  const company: Company = {
    id: companyId,
    name: `Random Co ${seed}`,
    baseCurrency: 'USD',
    fiscalYearStartMonth: 1,
    timeZone: 'UTC',
  };
  const locationCount = Math.max(1, options.locations ?? 4);
  const locations: Location[] = Array.from({ length: locationCount }, (_, i) => ({
    id: i + 1,
    companyId,
    name: `Location ${i + 1}`,
  }));
  const accounts: Account[] = CHART.map(([id, name, type, parentId]) => ({
    id,
    companyId,
    number: String(id),
    name,
    type,
    parentId,
    isActive: true,
    standardAccountId: null,
  }));
  const channel = fakeGuid('category:channel', seed);
  const region = fakeGuid('category:daypart', seed);
  const trackingCategories: TrackingCategory[] = [
    { id: channel, companyId, name: 'Channel' },
    { id: region, companyId, name: 'Daypart' },
  ];
  const trackingOptions: TrackingOption[] = [
    ...['Dine In', 'Delivery', 'Takeout'].map((name) => ({
      id: fakeGuid(`option:channel:${name}`, seed),
      categoryId: channel,
      name,
    })),
    ...['Breakfast', 'Lunch', 'Dinner', 'Late Night'].map((name) => ({
      id: fakeGuid(`option:daypart:${name}`, seed),
      categoryId: region,
      name,
    })),
  ];
  return {
    companyId,
    company,
    locations,
    accounts,
    trackingCategories,
    trackingOptions,
    batch: {
      companies: [company],
      locations,
      standardAccounts: [],
      accounts,
      trackingCategories,
      trackingOptions,
      entries: [],
    },
  };
}

const DAY_MS = 86_400_000;
const epochDay = (d: string) =>
  Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10))) / DAY_MS;

/** Streams the entries of the random ledger (same sequence for the same options). */
export function* randomLedgerEntries(options: RandomLedgerOptions): Generator<JournalEntryInput> {
  const ref = randomLedgerReference(options);
  const rnd = createRng(options.seed);
  const from = epochDay(options.startDate ?? '2023-01-01');
  const to = epochDay(options.endDate ?? '2024-12-31');
  if (!(to >= from)) throw new RangeError('randomLedger: endDate before startDate');
  const dates = Array.from({ length: to - from + 1 }, (_, i) =>
    new Date((from + i) * DAY_MS).toISOString().slice(0, 10),
  );
  const locationIds = ref.locations.map((l) => l.id);
  const typeOf = new Map(ref.accounts.map((a) => [a.id, a.type]));
  const weighted: number[] = POSTABLE.flatMap(([id, w]) => Array<number>(w).fill(id));
  const byCategory = ref.trackingCategories.map((c) =>
    ref.trackingOptions.filter((o) => o.categoryId === c.id).map((o) => o.id),
  );
  const unposted = options.unpostedRate ?? 0.02;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

  for (let i = 0; i < options.entries; i++) {
    const locationId = pick(locationIds);
    const date = pick(dates);
    const count = 1 + Math.floor(rnd() * 3);
    const lines: JournalLineInput[] = [];
    let sum = 0;
    for (let k = 0; k < count; k++) {
      const accountId = pick(weighted);
      // Mostly small amounts, sometimes large; integer cents.
      const magnitude = rnd() < 0.9 ? 1 + Math.floor(rnd() * 50_000) : 1 + Math.floor(rnd() * 5_000_000);
      const natural = CREDIT_NORMAL.has(typeOf.get(accountId)!) ? -magnitude : magnitude;
      const cents = rnd() < 0.06 ? -natural : natural; // contra: refunds, rebates
      const trackingOptionIds: string[] = [];
      for (const opts of byCategory) if (rnd() < 0.5) trackingOptionIds.push(pick(opts));
      const line: JournalLineInput = { accountId, cents, trackingOptionIds };
      if (rnd() < 0.05) line.locationId = pick(locationIds);
      lines.push(line);
      sum += cents;
    }
    lines.push({ accountId: BANK_ACCOUNT_ID, cents: -sum });
    yield {
      companyId: ref.companyId,
      locationId,
      date,
      memo: `Random entry ${i + 1}`,
      isPosted: rnd() >= unposted,
      lines,
    };
  }
}

/** The whole ledger as one batch (fine up to a few hundred thousand entries). */
export function randomLedgerBatch(options: RandomLedgerOptions): LedgerBatch {
  return { ...randomLedgerReference(options).batch, entries: [...randomLedgerEntries(options)] };
}
