/** Twelve months (from 2024-01) of random daily sums and their month snapshots, for the in-memory index's tests. */
import { seededRandom } from '../../src/store/demo-ledger.ts';
import { encodeMonthSnapshot } from '../../src/store/memory/month-snapshot.ts';

export const FIRST_MONTH = 24_288; // 2024-01

/**
 * Month m's daily sums ([day, location, account, tag set, cents]: `rows(m)` of them, accounts 100 to 100 +
 * `accounts(m)` - 1) and the snapshots of the months (`[month index, snapshot]`), drawn from `seed`.
 */
export function randomMonths(seed: number, rows: (m: number) => number, accounts: (m: number) => number) {
  const rnd = seededRandom(seed);
  const months = Array.from({ length: 12 }, (_, m) =>
    Array.from({ length: rows(m) }, () => [
      1 + Math.floor(rnd() * 28),
      1 + Math.floor(rnd() * 3),
      100 + Math.floor(rnd() * accounts(m)),
      Math.floor(rnd() * 4),
      Math.round((rnd() - 0.5) * 1e6),
    ]),
  );
  const snapshots = months.map(
    (sums, m) =>
      [
        FIRST_MONTH + m,
        encodeMonthSnapshot(
          [0, 1, 2, 3, 4].map((k) => sums.map((row) => row[k]!)),
          sums.length,
        ),
      ] as const,
  );
  return { months, snapshots };
}

/** Accounts 100 to 100 + `count` - 1, the year 2024 over them, and a clipped part of it (some locations, tag sets). */
export function yearQueries(count: number) {
  const accounts = Array.from({ length: count }, (_, a) => 100 + a);
  const year = { fromDay: 19_723, toDay: 20_088, locations: [], tagSets: undefined, accounts };
  const clipped = { ...year, fromDay: 19_740, toDay: 19_900, locations: [2], tagSets: [1, 3] };
  return { accounts, year, clipped };
}
