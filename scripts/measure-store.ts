/**
 * Throwaway measurement: load time of the demo ledger into DuckDB at a given size, and sumPnlByAccountMonth latency.
 *   npx tsx scripts/measure-store.ts [entries=100000] [duckdbPath=:memory:]
 */
import { DuckDbLedgerStore } from '../src/store/duckdb/duckdb-store.ts';
import { DEMO_OPTIONS, generateDemoLedger } from '../src/store/demo-ledger.ts';
import type { PnlQuery } from '../src/domain/ledger.ts';

const target = Number(process.argv[2] ?? 100_000);
const path = process.argv[3] ?? ':memory:';
const locations = 4,
  days = 731;
const ticketsPerDay = Math.max(1, Math.round(target / (locations * days) - 1.3));

let t0 = performance.now();
const batch = generateDemoLedger({ from: '2023-01-01', to: '2024-12-31', locations, ticketsPerDay, seed: 1 });
const lines = batch.entries!.reduce((s, e) => s + e.lines.length, 0);
console.log(`generated ${batch.entries!.length} entries / ${lines} lines in ${(performance.now() - t0).toFixed(0)} ms`);

const store = await DuckDbLedgerStore.open(path);
await store.migrate();
t0 = performance.now();
await store.load(batch);
console.log(`load: ${(performance.now() - t0).toFixed(0)} ms`);

const queries: [string, PnlQuery][] = [
  ['12 full months', { companyId: 1, from: '2024-01-01', to: '2024-12-31', locationIds: [], optionGroups: [] }],
  [
    '12 months, partial edges',
    { companyId: 1, from: '2023-07-15', to: '2024-07-14', locationIds: [], optionGroups: [] },
  ],
  [
    '12 months, 2 locations + DineIn',
    {
      companyId: 1,
      from: '2023-07-15',
      to: '2024-07-14',
      locationIds: [101, 103],
      optionGroups: [[DEMO_OPTIONS.DineIn]],
    },
  ],
];
for (const [label, q] of queries) {
  for (let i = 0; i < 3; i++) await store.sumPnlByAccountMonth(q); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const s = performance.now();
    await store.sumPnlByAccountMonth(q);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: median ${times[15]!.toFixed(1)} ms, p90 ${times[27]!.toFixed(1)} ms`);
}
t0 = performance.now();
await store.scanPnlByAccountMonth(queries[1]![1]);
console.log(`direct scan (reference, not used by the service): ${(performance.now() - t0).toFixed(0)} ms`);
await store.close();
