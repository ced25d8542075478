/**
 * An index built from month snapshots (memory/month-snapshot.ts) is reserved before it is made (the bytes it reserves
 * are at least its size), and an evicted index gives its arrays' memory back at once (CompanyBalances.release): a
 * report still holding it is told (IndexReleased) instead of reading emptied arrays, and a clone keeps what it shares.
 */
import { expect } from 'chai';
import { CompanyBalances, IndexReleased } from '../../../src/store/memory/balance-index.ts';
import { balancesFromSnapshots } from '../../../src/store/memory/month-snapshot.ts';
import { FIRST_MONTH, randomMonths, yearQueries } from '../../support/month-snapshot-ledger.ts';

/** Twelve months of daily sums: [day, location, account, tag set, cents]. */
const { months, snapshots: monthSnapshots } = randomMonths(
  11,
  (m) => 200 + m * 40,
  (m) => 5 + m * 3,
);
const snapshots = monthSnapshots.map(([, snapshot]) => snapshot);
const { year, clipped } = yearQueries(40);

/** As the stores build an index (one slab, daily sums int32 where the snapshots hold them so). */
function built(): CompanyBalances {
  const balances = balancesFromSnapshots(snapshots.map((snapshot, m) => [FIRST_MONTH + m, snapshot] as const));
  expect(balances).to.not.equal(undefined);
  return balances!;
}

describe('index memory: reserved before a build, given back at eviction (memory/balance-index.ts)', () => {
  it('a build reserves at least what its index is charged, and not much more', () => {
    let expected = 0;
    const balances = balancesFromSnapshots(
      snapshots.map((snapshot, m) => [FIRST_MONTH + m, snapshot] as const),
      (bytes) => (expected = bytes),
    )!;
    expect(expected).to.be.at.least(balances.estimatedBytes());
    expect(expected).to.be.at.most(balances.estimatedBytes() * 1.25);
  });

  it('the same figures as the daily sums added one by one', () => {
    const byRow = new CompanyBalances();
    months.forEach((rows, m) => {
      for (const [day, location, account, tagSet, cents] of rows)
        byRow.addOn(FIRST_MONTH + m, day!, location!, account!, tagSet!, cents!);
    });
    const balances = built();
    expect(balances.sum(year)).to.deep.equal(byRow.sum(year)).and.not.be.empty;
    expect(balances.sum(clipped)).to.deep.equal(byRow.sum(clipped)).and.not.be.empty;
  });

  it('a released index holds no arrays and refuses to answer', () => {
    const balances = built();
    expect(balances.byteSize()).to.be.greaterThan(0);
    balances.release();
    expect(balances.released).to.equal(true);
    expect(balances.byteSize()).to.equal(0);
    expect(() => balances.sum(year)).to.throw(IndexReleased);
  });

  it('a clone keeps answering when the index it shares months with is released, and the other way round', () => {
    const source = built();
    const figures = source.sum(year);
    const clone = source.clone();
    clone.addOn(FIRST_MONTH + 3, 5, 1, 100, 0, 1_234); // copies that month; the others stay shared
    source.release();
    const changed = clone.sum(year);
    expect(changed).to.not.deep.equal(figures);
    const other = built().clone();
    other.addOn(FIRST_MONTH + 3, 5, 1, 100, 0, 1_234);
    expect(changed).to.deep.equal(other.sum(year));
    const kept = built();
    const released = kept.clone();
    released.release();
    expect(kept.sum(year)).to.deep.equal(figures);
  });
});
