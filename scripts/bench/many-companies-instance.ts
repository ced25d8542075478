/**
 * The instance of the many-companies bench (bench/many-companies.ts), a child process running the production modules
 * (dist/, compiled by this module's compileInstance): Zipf-distributed report reads within the index budget with its
 * peak RSS by part, then the cold first reports of the 10k and the largest company.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { PnlQuery } from '../../src/domain/ledger.ts';
import type { DuckDbLedgerStore } from '../../src/store/duckdb/duckdb-store.ts';
import type { IndexStats } from '../../src/store/ledger/lifecycle.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createRng } from '../lib/random-ledger.ts';
import { type ColdAnchor, coldAnchors } from './cold-anchor.ts';
import { fmtInt } from './stats.ts';

export interface ManyCompaniesOptions {
  companies: number;
  totalEntries: number;
  largest: number;
  indexMb: number;
  /** STORE_MEMORY_MB of the instance (DuckDB); unset = its default. */
  storeMb?: number;
  /** INDEX_RSS_HEADROOM_MB of the instance; unset = its default, 0 = no RSS limit. */
  rssHeadroomMb?: number;
  /** Node options added after npm start's (a later V8 flag wins), e.g. `--max-semi-space-size=2`. */
  nodeOptions?: string;
  requests: number;
  seed: number;
  store: 'duckdb' | 'postgres';
}

/** Where the instance finds the ledger: a DuckDB file or a PostgreSQL URL. */
export type Where = { duckdbPath: string } | { databaseUrl: string };
export const storeAt = (where: Where, indexMemoryMb: number, storeMemoryMb?: number, indexRssHeadroomMb?: number) =>
  openStore({ dataDir: tmpdir(), ...where, indexMemoryMb, storeMemoryMb, indexRssHeadroomMb });

export const MEDIUM = 10_000;
const YEAR: Omit<PnlQuery, 'companyId'> = { from: '2024-01-01', to: '2024-12-31', locationIds: [], optionGroups: [] };

export interface RunResult {
  budgetMiB: number;
  peakRssMiB: number;
  /** The peak during the Zipf-distributed reads (before the cold reports of the largest companies). */
  readsPeakRssMiB: number;
  baseRssMiB: number;
  /** At the peak, MiB: where the RSS was (memoryUsage(), smaps_rollup). */
  atPeak: PeakParts;
  /** DuckDB's own accounted memory (duckdb_memory()), the most seen (MiB; 0 on PostgreSQL). */
  engineMiB: number;
  /** DuckDB's memory_limit (STORE_MEMORY_MB), as it shows it; empty on PostgreSQL. */
  engineLimit: string;
  stats: IndexStats;
  /** The least room the indexes had during the reads (the budget less the RSS over its limit), MiB. */
  leastRoomMiB: number;
  requests: number;
  seconds: number;
  hitMs: number[];
  missMs: number[];
  cold: { name: string; entries: number; ms: number[]; readMs: number; indexMs: number; anchor?: ColdAnchor }[];
}

/**
 * Parts of the RSS, MiB: V8's heap (committed, used), typed arrays' buffers from the C allocator, the indexes' slabs
 * (resizable buffers V8 maps itself: its external memory beyond those typed arrays), anonymous and file-backed pages.
 */
interface PeakParts {
  heapTotal: number;
  heapUsed: number;
  arrayBuffers: number;
  slabs: number;
  anonymous: number;
  file: number;
}

function rssParts(): PeakParts {
  const m = process.memoryUsage();
  // Linux: anonymous pages are the heaps (V8's, the allocator's); file-backed ones the code of node and its addons.
  const kb = (name: string, text: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  let anonymous = 0;
  let file = 0;
  try {
    const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
    anonymous = kb('Anonymous', rollup) / 1024;
    file = kb('Rss', rollup) / 1024 - anonymous;
  } catch {}
  const mib = (b: number) => b / 2 ** 20;
  return {
    heapTotal: mib(m.heapTotal),
    heapUsed: mib(m.heapUsed),
    arrayBuffers: mib(m.arrayBuffers),
    slabs: mib(m.external - m.arrayBuffers),
    anonymous,
    file,
  };
}

/** The instance (child process): Zipf-distributed reports within the budget, then cold first reports. */
export async function runInstance(where: Where, o: ManyCompaniesOptions): Promise<RunResult> {
  const store: LedgerStore = await storeAt(where, o.indexMb, o.storeMb, o.rssHeadroomMb);
  let peak = 0;
  let atPeak = rssParts();
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) {
      peak = rss;
      atPeak = rssParts();
    }
  };
  let engine = 0;
  let engineLimit = '';
  const sampleEngine = async (s: LedgerStore) => {
    if (s.kind !== 'duckdb') return;
    const { usedBytes, limit } = await (s as DuckDbLedgerStore).engineMemory();
    engine = Math.max(engine, usedBytes / 2 ** 20);
    engineLimit = limit;
  };
  const sampler = setInterval(sample, 50);
  const baseRssMiB = process.memoryUsage.rss() / 2 ** 20;
  // Zipf (s = 1) over the companies, ranks shuffled so that popularity does not follow size.
  const rnd = createRng(o.seed);
  const ranks = Array.from({ length: o.companies }, (_, i) => i + 1).sort(() => rnd() - 0.5);
  const cumulative: number[] = [];
  ranks.reduce((sum, _c, r) => (cumulative[r] = sum + 1 / (r + 1)), 0);
  const pick = () => {
    const x = rnd() * cumulative.at(-1)!;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return ranks[lo]!;
  };
  const hitMs: number[] = [];
  const missMs: number[] = [];
  let leastRoom = store.indexStats().roomBytes;
  const started = performance.now();
  for (let i = 0; i < o.requests; i++) {
    const companyId = pick();
    const misses = store.indexStats().misses;
    const t = performance.now();
    await store.readSnapshot((view) => view.sumPnlByAccountMonth({ ...YEAR, companyId }));
    (store.indexStats().misses > misses ? missMs : hitMs).push(performance.now() - t);
    leastRoom = Math.min(leastRoom, store.indexStats().roomBytes);
    if (i % 64 === 0) {
      sample();
      await sampleEngine(store);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const stats = store.indexStats();
  const readsPeakRssMiB = peak / 2 ** 20;
  // Cold first reports: a small company's report between two samples evicts the measured one (it alone fills a budget
  // that holds one company: a store of its own with a 1-byte budget).
  await store.close();
  const cold: RunResult['cold'] = [];
  const coldStore = await storeAt(where, 0, o.storeMb);
  for (const [name, companyId, entries, samples] of [
    ['10k-entry company', 2, MEDIUM, 100],
    [`${fmtInt(o.largest)}-entry company`, 1, o.largest, 20],
  ] as const) {
    const ms: number[] = [];
    const before = coldStore.indexStats();
    for (let s = 0; s < samples; s++) {
      await coldStore.sumPnlByAccountMonth({ ...YEAR, companyId: o.companies });
      const t = performance.now();
      await coldStore.readSnapshot((view) => view.sumPnlByAccountMonth({ ...YEAR, companyId }));
      ms.push(performance.now() - t);
      sample();
      await sampleEngine(coldStore);
    }
    const after = coldStore.indexStats();
    cold.push({
      name,
      entries,
      ms,
      readMs: (after.readMs - before.readMs) / samples,
      indexMs: (after.indexMs - before.indexMs) / samples,
    });
  }
  await coldStore.close();
  const anchors = await coldAnchors(where, [2, 1]);
  for (const [i, c] of cold.entries()) c.anchor = anchors.get(i === 0 ? 2 : 1);
  clearInterval(sampler);
  return {
    budgetMiB: o.indexMb,
    peakRssMiB: peak / 2 ** 20,
    readsPeakRssMiB,
    baseRssMiB,
    atPeak,
    engineMiB: engine,
    engineLimit,
    stats,
    leastRoomMiB: leastRoom / 2 ** 20,
    requests: o.requests,
    seconds,
    hitMs,
    missMs,
    cold,
  };
}

/** The child's program (bench/many-companies.ts forks it): the ledger and options from its arguments. */
export async function instanceMain(): Promise<void> {
  const [where, options] = process.argv.slice(2).map((arg) => JSON.parse(arg) as unknown);
  const result = await runInstance(where as Where, options as ManyCompaniesOptions);
  process.send!(result, () => process.exit(0));
}
