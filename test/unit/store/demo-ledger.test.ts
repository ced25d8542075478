/** The demo ledger generator: deterministic by seed, balanced entries, two calendar years by default. */
import { expect } from 'chai';
import { generateDemoLedger } from '../../../src/store/demo-ledger.ts';

describe('demo ledger generator', () => {
  it('is deterministic: same seed, same batch; another seed, another batch', () => {
    const opts = { from: '2023-01-01', to: '2024-12-31', locations: 3, ticketsPerDay: 2 };
    const a = generateDemoLedger({ ...opts, seed: 7 });
    expect(generateDemoLedger({ ...opts, seed: 7 })).to.deep.equal(a);
    expect(generateDemoLedger({ ...opts, seed: 8 }).entries).to.not.deep.equal(a.entries);
    for (const e of a.entries!) expect(e.lines.reduce((s, l) => s + l.cents, 0)).to.equal(0);
    expect(a.entries!.every((e) => e.lines.every((l) => Number.isSafeInteger(l.cents)))).to.equal(true);
    expect(a.accounts!.some((x) => x.parentId === 6100 && x.name === 'Rent')).to.equal(true);
    expect(
      a.accounts!.filter((x) => x.type !== 'Bank' && x.standardAccountId === null).length,
    ).to.be.greaterThanOrEqual(2);
  });

  it('covers two full calendar years ending with the current year by default', () => {
    const b = generateDemoLedger({ to: '2025-03-15', locations: 1, ticketsPerDay: 1 });
    const dates = b.entries!.map((e) => e.date).sort();
    expect(dates[0]).to.equal('2023-01-01');
    expect(dates.at(-1)).to.equal('2025-03-15');
  });
});
