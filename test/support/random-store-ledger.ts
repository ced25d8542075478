/**
 * A seeded random ledger (not a test file): locations, mixed account types, two tracking categories, unposted entries.
 */
import { seededRandom } from '../../src/store/demo-ledger.ts';
import { addIsoDays } from '../../src/scalars/dates.ts';
import type { AccountMonthTotal, LedgerBatch, PnlQuery } from '../../src/domain/ledger.ts';
import { PNL_ACCOUNT_TYPES } from '../../src/domain/ledger.ts';

const hex = (n: number) => n.toString(16).padStart(32, '0');
export const CATEGORY_A = hex(0xa0),
  CATEGORY_B = hex(0xb0);
export const OPTIONS_A = [hex(0xa1), hex(0xa2), hex(0xa3)];
export const OPTIONS_B = [hex(0xb1), hex(0xb2)];
export const RANDOM_COMPANY = 7;
export const RANDOM_LOCATIONS = [71, 72, 73];
const ACCOUNTS: [number, string][] = [
  [1000, 'Bank'],
  [1200, 'AccountsReceivable'],
  [2000, 'AccountsPayable'],
  [4000, 'Income'],
  [4100, 'Income'],
  [5000, 'COGS'],
  [6000, 'Expense'],
  [6100, 'Expense'],
  [7000, 'OtherIncome'],
  [8000, 'OtherExpense'],
];

export function randomLedger(seed: number, entryCount: number): LedgerBatch {
  const rnd = seededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const entries: NonNullable<LedgerBatch['entries']> = [];
  for (let i = 0; i < entryCount; i++) {
    const date = addIsoDays('2023-01-01', Math.floor(rnd() * 900));
    const locationId = pick(RANDOM_LOCATIONS);
    const n = 1 + Math.floor(rnd() * 3);
    const lines: NonNullable<LedgerBatch['entries']>[number]['lines'] = [];
    let sum = 0;
    for (let k = 0; k < n; k++) {
      const cents = Math.floor((rnd() - 0.5) * 2_000_000);
      const opts: string[] = [];
      if (rnd() < 0.6) opts.push(pick(OPTIONS_A));
      if (rnd() < 0.5) opts.push(pick(OPTIONS_B));
      lines.push({
        accountId: pick(ACCOUNTS)[0],
        cents,
        trackingOptionIds: opts,
        ...(rnd() < 0.2 ? { locationId: pick(RANDOM_LOCATIONS) } : {}),
      });
      sum += cents;
    }
    lines.push({ accountId: 1000, cents: -sum });
    entries.push({ companyId: RANDOM_COMPANY, locationId, date, isPosted: rnd() > 0.05, lines });
  }
  return {
    companies: [
      { id: RANDOM_COMPANY, name: 'Random Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' },
    ],
    locations: RANDOM_LOCATIONS.map((id) => ({ id, companyId: RANDOM_COMPANY, name: `Loc ${id}` })),
    standardAccounts: [],
    accounts: ACCOUNTS.map(([id, type]) => ({
      id,
      companyId: RANDOM_COMPANY,
      number: String(id),
      name: `Acct ${id}`,
      type: type as never,
      parentId: null,
      isActive: true,
      standardAccountId: null,
    })),
    trackingCategories: [
      { id: CATEGORY_A, companyId: RANDOM_COMPANY, name: 'A' },
      { id: CATEGORY_B, companyId: RANDOM_COMPANY, name: 'B' },
    ],
    trackingOptions: [
      ...OPTIONS_A.map((id, i) => ({ id, categoryId: CATEGORY_A, name: `A${i}` })),
      ...OPTIONS_B.map((id, i) => ({ id, categoryId: CATEGORY_B, name: `B${i}` })),
    ],
    entries,
  };
}

/** Oracle in plain JS over the batch itself (BigInt sums). */
export function expectedTotals(batch: LedgerBatch, q: PnlQuery): AccountMonthTotal[] {
  const types = new Map((batch.accounts ?? []).map((a) => [a.id, a.type]));
  const pnl = new Set<string>(PNL_ACCOUNT_TYPES);
  const sums = new Map<string, bigint>();
  for (const e of batch.entries ?? []) {
    if (e.companyId !== q.companyId || e.isPosted === false || e.date < q.from || e.date > q.to) continue;
    for (const l of e.lines) {
      if (!pnl.has(types.get(l.accountId) ?? '')) continue;
      const loc = l.locationId ?? e.locationId;
      if (q.locationIds.length > 0 && !q.locationIds.includes(loc)) continue;
      const opts = l.trackingOptionIds ?? [];
      if (!q.optionGroups.filter((g) => g.length > 0).every((g) => g.some((o) => opts.includes(o)))) continue;
      const key = `${l.accountId}|${e.date.slice(0, 7)}`;
      sums.set(key, (sums.get(key) ?? 0n) + BigInt(l.cents));
    }
  }
  return [...sums]
    .filter(([, v]) => v !== 0n)
    .map(([k, v]) => ({ accountId: Number(k.split('|')[0]), month: k.split('|')[1]!, cents: Number(v) }))
    .sort((a, b) => a.accountId - b.accountId || a.month.localeCompare(b.month));
}

export function randomQuery(rnd: () => number): PnlQuery {
  const from = addIsoDays('2022-12-20', Math.floor(rnd() * 900));
  const to = addIsoDays(from, Math.floor(rnd() * 400));
  const pick = <T>(a: readonly T[]) => a.filter(() => rnd() < 0.5);
  const locationIds = rnd() < 0.5 ? [] : pick(RANDOM_LOCATIONS);
  const optionGroups: string[][] = [];
  if (rnd() < 0.5) optionGroups.push(pick(OPTIONS_A).length ? pick(OPTIONS_A) : [OPTIONS_A[0]!]);
  if (rnd() < 0.4) optionGroups.push([OPTIONS_B[Math.floor(rnd() * 2)]!]);
  return { companyId: RANDOM_COMPANY, from, to, locationIds, optionGroups };
}
