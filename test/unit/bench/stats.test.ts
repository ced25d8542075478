/** The benchmarks' shared helpers: their options and how a count is split into rounds. */
import { expect } from 'chai';
import { intArg, parseArgs, roundSizes } from '../../../scripts/bench/stats.ts';

describe('bench stats', () => {
  it('roundSizes splits a count into at most that many rounds, adding up to it, none empty', () => {
    expect(roundSizes(200, 10)).to.deep.equal(Array(10).fill(20));
    expect(roundSizes(25, 10)).to.deep.equal([3, 3, 3, 3, 3, 2, 2, 2, 2, 2]);
    expect(roundSizes(3, 10)).to.deep.equal([1, 1, 1]);
    expect(roundSizes(1, 10)).to.deep.equal([1]);
    for (let total = 1; total <= 40; total++) {
      const sizes = roundSizes(total, 10);
      expect(
        sizes.reduce((sum, size) => sum + size, 0),
        String(total),
      ).to.equal(total);
    }
  });

  it('intArg reads a positive whole number, its default when absent, and names the option otherwise', () => {
    expect(intArg(parseArgs(['--loads', '25']), 'loads', 200)).to.equal(25);
    expect(intArg(parseArgs([]), 'loads', 200)).to.equal(200);
    for (const argv of [['--loads', '2.5'], ['--loads', '0'], ['--loads', 'x'], ['--loads']]) {
      expect(() => intArg(parseArgs(argv), 'loads', 200), argv.join(' ')).to.throw(/--loads takes a positive whole/);
    }
  });
});
