/**
 * The index budget's bookkeeping (src/store/memory/index-budget.ts), without a store: least recently used first out,
 * the company used last kept even alone over the budget, a resize keeping its place, rebuilds counted only for
 * companies evicted before.
 */
import { expect } from 'chai';
import { IndexBudget } from '../../../src/store/memory/index-budget.ts';

function budgetOf(bytes: number) {
  const evicted: number[] = [];
  return { budget: new IndexBudget(bytes, (id) => evicted.push(id)), evicted };
}

describe('index budget: least recently used out', () => {
  it('evicts the company used longest ago, not the one a report just touched', () => {
    const { budget, evicted } = budgetOf(300);
    budget.hold(1, 100);
    budget.hold(2, 100);
    budget.hold(3, 100);
    budget.hit(1); // 2 is now the least recently used
    budget.hold(4, 100);
    expect(evicted).to.deep.equal([2]);
    expect(budget.stats()).to.include({ heldBytes: 300, companies: 3, hits: 1, evictions: 1 });
  });

  it('keeps the company used last even when it alone is over the budget', () => {
    const { budget, evicted } = budgetOf(100);
    budget.hold(1, 60);
    budget.hold(2, 500);
    expect(evicted).to.deep.equal([1]);
    expect(budget.stats()).to.include({ heldBytes: 500, companies: 1 });
    expect(budget.full()).to.equal(true);
  });

  it('a resize keeps the company in its place; growth past the budget evicts the oldest', () => {
    const { budget, evicted } = budgetOf(300);
    budget.hold(1, 100);
    budget.hold(2, 100);
    budget.resize(1, 150); // 1 stays the least recently used
    expect(evicted).to.deep.equal([]);
    budget.resize(2, 180);
    expect(evicted).to.deep.equal([1]);
    expect(budget.stats()).to.include({ heldBytes: 180, companies: 1 });
  });

  it('counts a miss as a rebuild only for a company evicted before; a release is no eviction', () => {
    const { budget, evicted } = budgetOf(100);
    budget.miss(1);
    budget.hold(1, 100);
    budget.miss(2);
    budget.hold(2, 100); // evicts 1
    budget.miss(1);
    budget.hold(1, 100); // evicts 2
    budget.release(1);
    budget.miss(1);
    expect(evicted).to.deep.equal([1, 2]);
    expect(budget.stats()).to.include({ misses: 4, rebuilds: 1, evictions: 2, companies: 0, heldBytes: 0 });
  });

  it('a clear drops what is held but keeps the running totals /metrics exports as counters', () => {
    const { budget, evicted } = budgetOf(100);
    budget.miss(1);
    budget.hold(1, 100);
    budget.hold(2, 100); // evicts 1
    budget.hit(2);
    budget.clear();
    expect(evicted).to.deep.equal([1]);
    expect(budget.stats()).to.include({ heldBytes: 0, companies: 0, hits: 1, misses: 1, evictions: 1, rebuilds: 0 });
    budget.miss(1);
    expect(budget.stats()).to.include({ misses: 2, rebuilds: 1 });
  });
});
