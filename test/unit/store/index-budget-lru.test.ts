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

describe('index budget: a build reserves its bytes before it makes its index', () => {
  it('evicts before the build, so that held + building never passes the budget', () => {
    const budgetBytes = 1_000;
    const held = new Set<number>();
    const budget = new IndexBudget(budgetBytes, (id) => held.delete(id));
    const within = () => {
      const { heldBytes, buildingBytes } = budget.stats();
      expect(heldBytes + buildingBytes).to.be.at.most(budgetBytes);
    };
    const sizes = Array.from({ length: 40 }, (_, id) => 50 + ((id * 37) % 350));
    for (let i = 0; i < 2_000; i++) {
      const id = (i * 7919 + (i >> 3)) % sizes.length;
      if (held.has(id)) {
        budget.hit(id);
        continue;
      }
      budget.miss(id);
      const reservation = budget.reserve(sizes[id]!);
      within();
      const evictions = budget.stats().evictions;
      budget.unreserve(reservation);
      budget.hold(id, sizes[id]!);
      held.add(id);
      within();
      expect(budget.stats().evictions, 'evicted at hold, after the build').to.equal(evictions);
      expect(budget.stats().buildingBytes).to.equal(0);
    }
    expect(budget.stats().evictions).to.be.greaterThan(100);
  });

  it('builds under way at once are all charged; an ended one gives its reservation back once', () => {
    const { budget, evicted } = budgetOf(1_000);
    budget.hold(1, 400);
    budget.hold(2, 400);
    const first = budget.reserve(300); // evicts 1
    const second = budget.reserve(350); // evicts 2
    expect(evicted).to.deep.equal([1, 2]);
    expect(budget.stats()).to.include({ heldBytes: 0, buildingBytes: 650 });
    expect(budget.full()).to.equal(false);
    budget.unreserve(first);
    budget.unreserve(first);
    budget.unreserve(undefined);
    expect(budget.stats()).to.include({ buildingBytes: 350 });
    budget.hold(3, 300);
    budget.unreserve(second);
    expect(budget.stats()).to.include({ heldBytes: 300, buildingBytes: 0, companies: 1 });
  });

  it('a build larger than the budget evicts every held company, and is held alone', () => {
    const { budget, evicted } = budgetOf(100);
    budget.hold(1, 60);
    const reservation = budget.reserve(500);
    expect(evicted).to.deep.equal([1]);
    budget.unreserve(reservation);
    budget.hold(2, 500);
    expect(budget.stats()).to.include({ heldBytes: 500, companies: 1 });
  });
});

describe('index budget: the indexes give way when the process outgrows budget + headroom', () => {
  /** The RSS of a process whose other memory is `rest` and whose indexes give their pages back when evicted. */
  function modelled(budgetBytes: number, limitBytes: number) {
    const indexes = new Map<number, number>();
    const model = { rest: 0, evicted: [] as number[], now: 0 };
    const rss = () => model.rest + [...indexes.values()].reduce((a, b) => a + b, 0);
    const budget = new IndexBudget(
      budgetBytes,
      (id) => {
        model.evicted.push(id);
        indexes.delete(id);
      },
      limitBytes,
      rss,
      () => model.now,
    );
    const build = (id: number, bytes: number) => {
      const reservation = budget.reserve(bytes);
      indexes.set(id, bytes);
      budget.unreserve(reservation);
      budget.hold(id, bytes);
    };
    return { budget, model, rss, build };
  }

  it('over the limit, evicts the least recently used until the RSS is back within it; grows back after', () => {
    const { budget, model, rss, build } = modelled(1_000, 1_500);
    model.rest = 200;
    for (let id = 1; id <= 4; id++) build(id, 250);
    expect(budget.stats()).to.include({ roomBytes: 1_000, heldBytes: 1_000, companies: 4 });
    expect(budget.full()).to.equal(true);
    model.rest = 700; // 500 more beside the indexes, unseen until the next build: kept as room below the limit after
    build(5, 200);
    expect(model.evicted).to.deep.equal([1, 2, 3, 4]);
    expect(rss()).to.be.at.most(1_500 - 500);
    expect(budget.stats()).to.include({ heldBytes: 200, companies: 1, roomBytes: 300 });
    model.rest = 200; // far under the limit again, and the rise two minutes old: forgotten, the whole budget
    model.now += 120_000;
    for (let id = 6; id <= 9; id++) build(id, 200);
    expect(model.evicted).to.deep.equal([1, 2, 3, 4]);
    expect(budget.stats()).to.include({ roomBytes: 1_000, heldBytes: 1_000, companies: 5 });
    model.rest = 5_000; // far over: no room, but the company built last stays
    build(10, 100);
    expect(budget.stats()).to.include({ roomBytes: 0, heldBytes: 100, companies: 1 });
  });

  it('keeps room below the limit for the most the memory beside the indexes grew between two decisions', () => {
    const { budget, model, rss, build } = modelled(1_000, 1_500);
    model.rest = 200;
    for (let id = 1; id <= 4; id++) build(id, 250);
    model.rest = 400; // 200 unseen: a build of 200 must leave the RSS within 1,500 - 200, not just 1,500
    build(5, 200);
    expect(model.evicted).to.deep.equal([1, 2]);
    expect(rss()).to.be.at.most(1_300);
    expect(budget.stats()).to.include({ heldBytes: 700, roomBytes: 900 });
  });

  it('keeps a rise for a minute to two, then forgets it', () => {
    const { budget, model, build } = modelled(1_000, 1_500);
    model.rest = 200;
    build(1, 250);
    model.rest = 600; // a rise of 400 (an import, say), then back
    build(2, 250);
    model.rest = 200;
    model.now += 90_000; // the rise is in the window before this one: kept
    build(3, 250);
    expect(budget.stats().roomBytes).to.equal(750 + 1_500 - 400 - 950);
    model.now += 60_000; // two windows on: forgotten
    build(4, 250);
    expect(budget.stats().roomBytes).to.equal(1_000);
  });

  it("an index's own pages, arriving between its reservation and its hold, are not memory beside the indexes", () => {
    const { budget, model, build } = modelled(1_000, 1_250);
    model.rest = 200;
    for (let id = 1; id <= 4; id++) build(id, 250);
    expect(model.evicted).to.deep.equal([]);
    expect(budget.stats()).to.include({ roomBytes: 1_000, heldBytes: 1_000, companies: 4 });
  });

  it('without a limit the room is the budget whatever the RSS', () => {
    const budget = new IndexBudget(
      1_000,
      () => undefined,
      undefined,
      () => 10 ** 12,
    );
    budget.hold(1, 600);
    budget.hold(2, 400);
    expect(budget.stats()).to.include({ roomBytes: 1_000, heldBytes: 1_000, companies: 2 });
  });
});
