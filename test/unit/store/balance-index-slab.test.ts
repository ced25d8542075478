/**
 * An index built from month snapshots lies in one allocation (memory/month-cells.ts CellSlab: a resizable ArrayBuffer,
 * mapped by V8 rather than taken from the C allocator), exact as the daily sums added one by one; a month that grows
 * moves to arrays of its own; the slab's pages go back when the last month in it is released, not before.
 */
import { expect } from 'chai';
import { CompanyBalances } from '../../../src/store/memory/balance-index.ts';
import {
  addMonthSnapshot,
  balancesFromSnapshots,
  encodeMonthSnapshot,
} from '../../../src/store/memory/month-snapshot.ts';
import { FIRST_MONTH, randomMonths, yearQueries } from '../../support/month-snapshot-ledger.ts';

/** Twelve months of daily sums: [day, location, account, tag set, cents]; later months bring new accounts. */
const { months, snapshots } = randomMonths(
  17,
  (m) => 150 + m * 30,
  (m) => 4 + m * 3,
);
const { accounts, year, clipped } = yearQueries(50);

function byRow(): CompanyBalances {
  const balances = new CompanyBalances();
  months.forEach((rows, m) => {
    for (const [day, location, account, tagSet, cents] of rows)
      balances.addOn(FIRST_MONTH + m, day!, location!, account!, tagSet!, cents!);
  });
  return balances;
}

function built(): CompanyBalances {
  const balances = balancesFromSnapshots(snapshots);
  expect(balances).to.not.equal(undefined);
  return balances!;
}

const onlyBuffer = (balances: CompanyBalances) => {
  const buffers = [...balances.buffers()];
  expect(buffers).to.have.length(1);
  return buffers[0] as ArrayBuffer;
};

describe('index memory: a build from month snapshots in one allocation (memory/month-cells.ts CellSlab)', () => {
  it('lays every month in one resizable buffer, as large as the build reserved, exact as the daily sums', () => {
    let reserved = 0;
    const balances = balancesFromSnapshots(snapshots, (bytes) => (reserved = bytes))!;
    const slab = onlyBuffer(balances);
    expect(slab.resizable).to.equal(true);
    expect(slab.byteLength - balances.byteSize()).to.be.within(0, 8 * months.length); // each month 8-byte aligned
    expect(reserved).to.be.at.least(balances.estimatedBytes());
    const reference = byRow();
    expect(balances.sum(year)).to.deep.equal(reference.sum(year)).and.not.be.empty;
    expect(balances.sum(clipped)).to.deep.equal(reference.sum(clipped)).and.not.be.empty;
  });

  it('gives the slab back when the index is released, and not while a clone still reads months in it', () => {
    const source = built();
    const slab = onlyBuffer(source);
    const bytes = slab.byteLength;
    const clone = source.clone();
    clone.addOn(FIRST_MONTH + 3, 5, 1, 100, 0, 1_234); // copies that month; the others stay in the slab
    source.release();
    expect(slab.byteLength).to.equal(bytes);
    const expected = byRow();
    expected.addOn(FIRST_MONTH + 3, 5, 1, 100, 0, 1_234);
    expect(clone.sum(year)).to.deep.equal(expected.sum(year));
    clone.release();
    expect(slab.byteLength).to.equal(0);
    const alone = built();
    const its = onlyBuffer(alone);
    alone.release();
    expect(its.byteLength).to.equal(0);
  });

  it('a month that grows (a new cell, a new account) moves to arrays of its own and stays exact', () => {
    const balances = built();
    const slab = onlyBuffer(balances);
    balances.addOn(FIRST_MONTH + 5, 9, 3, 999, 2, 777); // a new account and cell in a month of the slab
    balances.addOn(FIRST_MONTH + 6, 9, 1, 100, 0, -55); // a change to an existing cell stays in place
    expect(balances.buffers().size).to.be.greaterThan(1);
    const expected = byRow();
    expected.addOn(FIRST_MONTH + 5, 9, 3, 999, 2, 777);
    expected.addOn(FIRST_MONTH + 6, 9, 1, 100, 0, -55);
    const withNew = { ...year, accounts: [...accounts, 999] };
    expect(balances.sum(withNew)).to.deep.equal(expected.sum(withNew));
    expect(balances.sum({ ...clipped, accounts: [...accounts, 999] })).to.deep.equal(
      expected.sum({ ...clipped, accounts: [...accounts, 999] }),
    );
    balances.release();
    expect(slab.byteLength).to.equal(0);
  });

  it('holds daily sums as int32 where the snapshots do, widening a month a sum outgrows, exact throughout', () => {
    const balances = built();
    const reference = byRow();
    // The same cells, in arrays of float64 daily sums: the slab's int32 ones take about half of a cell's bytes.
    expect(balances.byteSize()).to.be.below(reference.byteSize() * 0.7);
    const slab = onlyBuffer(balances);
    const [day, location, account, tagSet] = months[2]![0]!;
    for (const index of [balances, reference]) {
      index.addOn(FIRST_MONTH + 2, day!, location!, account!, tagSet!, 2 ** 31 + 5); // an existing cell past int32
      index.addOn(FIRST_MONTH + 2, day!, location!, account!, tagSet!, -(2 ** 33)); // and below it
    }
    // A second snapshot added to months the index has: their cells' days are added to, past int32 too.
    const big = encodeMonthSnapshot([[day!], [location!], [account!], [tagSet!], [2 ** 40]], 1);
    expect(addMonthSnapshot(balances, FIRST_MONTH + 4, big)).to.equal(true);
    reference.addOn(FIRST_MONTH + 4, day!, location!, account!, tagSet!, 2 ** 40);
    for (const query of [
      year,
      clipped,
      { ...year, fromDay: 19_725, toDay: 19_790 },
      { ...year, fromDay: 19_797, toDay: 19_858 }, // mid-March to mid-May: both months clipped
      // The changed day of March alone, and of May, read from the cells (a location filter) and per account.
      ...[19_782, 19_843].flatMap((before) => [
        { ...year, fromDay: before + day!, toDay: before + day!, locations: [location!] },
        { ...year, fromDay: before + day!, toDay: before + day! },
      ]),
    ])
      expect(balances.sum(query)).to.deep.equal(reference.sum(query)).and.not.be.empty;
    expect(balances.buffers().size).to.be.greaterThan(1); // the widened months left the slab
    balances.release();
    expect(slab.byteLength).to.equal(0);
  });

  it('refuses snapshots of another layout or beyond 2^53 cents without keeping a slab', () => {
    const [month, bytes] = snapshots[0]!;
    const wrong = bytes.slice();
    new DataView(wrong.buffer).setInt32(0, 99, true);
    expect(balancesFromSnapshots([[month, wrong]])).to.equal(undefined);
    const inexact = encodeMonthSnapshot([[1], [1], [100], [0], [2 ** 60]], 1);
    expect(balancesFromSnapshots([...snapshots, [FIRST_MONTH + 12, inexact]])).to.equal(undefined);
  });
});
