/**
 * `npm run bench:report -- --only standby`: goal 4 of issue 37 in figures, how soon an import committed on the
 * primary shows in the reports of an instance that reads a hot standby (DATABASE_READ_URL), against an instance that
 * reads the primary itself, in the same run. A real primary and a real streaming standby (pg_basebackup, loopback);
 * each instance a PostgresLedgerStore of its own in this process, the imports those of bench/propagation.ts, timed
 * from the COMMIT's notification to the first report that shows them. The primary commits synchronously.
 */
import pg from 'pg';
import { PostgresLedgerStore } from '../../src/store/postgres/postgres-store.ts';
import { startPostgresServer } from '../lib/postgres-server.ts';
import { startStandby } from '../lib/postgres-standby.ts';
import { ensurePropagationCompany, measurePropagation, PROPAGATION_COMPANY, PROPAGATION_RANGE } from './propagation.ts';
import { fmtMs, fmtRatio, median, percentile, roundSizes, table } from './stats.ts';

/** The imports of each instance are timed in this many rounds, alternating between the two. */
const ROUNDS = 10;

/** The instance's figures of the propagation company, read after a turn of the event loop (the feed's I/O runs). */
const reportOf = (store: PostgresLedgerStore) => async () => {
  await new Promise((resolve) => setImmediate(resolve));
  const sums = await store.sumPnlByAccountMonth({
    companyId: PROPAGATION_COMPANY,
    ...PROPAGATION_RANGE,
    locationIds: [],
    optionGroups: [],
  });
  return JSON.stringify(sums);
};

export async function standbySection(log: (line: string) => void, loads: number): Promise<void> {
  log(`Reports from a hot standby (issue 37, goal 4): ${loads} one-entry imports on the primary timed per instance`);
  const primary = await startPostgresServer('standby_bench');
  const stores: PostgresLedgerStore[] = [];
  let standby: Awaited<ReturnType<typeof startStandby>> | undefined;
  try {
    // As a production primary commits (the test server's default is synchronous_commit=off, whose WAL reaches the
    // standby only at the WAL writer's next flush, up to 200 ms later).
    const admin = new pg.Client({ connectionString: primary.url });
    await admin.connect();
    await admin.query('ALTER DATABASE standby_bench SET synchronous_commit = on').finally(() => admin.end());
    await ensurePropagationCompany(primary.url);
    standby = await startStandby(primary);
    const viaStandby = new PostgresLedgerStore(primary.url, { readUrl: standby.urlOf('standby_bench') });
    const viaPrimary = new PostgresLedgerStore(primary.url);
    stores.push(viaStandby, viaPrimary);
    // Both follow the company (its first report) before the imports; rounds alternate between them.
    for (const store of stores) await reportOf(store)();
    const times = { standby: [] as number[], primary: [] as number[] };
    for (const size of roundSizes(loads, ROUNDS)) {
      times.standby.push(...(await measurePropagation(primary.url, reportOf(viaStandby), size)));
      times.primary.push(...(await measurePropagation(primary.url, reportOf(viaPrimary), size)));
    }
    const p99 = percentile(times.standby, 99);
    log(
      table([
        ['instance reads', 'import → visible p50', 'p99', 'max', 'bound'],
        [
          'the standby (DATABASE_READ_URL)',
          fmtMs(median(times.standby)),
          fmtMs(p99),
          fmtMs(Math.max(...times.standby)),
          `goal p99 ≤ 1 s: ${p99 <= 1_000 ? 'met' : 'NOT met'}; ` +
            `${fmtRatio(p99 / percentile(times.primary, 99))} the primary's p99`,
        ],
        [
          'the primary (anchor)',
          fmtMs(median(times.primary)),
          fmtMs(percentile(times.primary, 99)),
          fmtMs(Math.max(...times.primary)),
          '',
        ],
      ]),
    );
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await standby?.destroy();
    await primary.destroy();
  }
}
