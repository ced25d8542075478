/**
 * Anchors of a company's cold first report (bench/many-companies.ts), the store's raw queries timed through its
 * driver alone: fetching the company's month snapshots (what a build reads, without adding them to an index), and
 * the engine scanning the company's balance_daily rows (a count and a sum: what any read of the daily sums costs it).
 */
import { DuckDBInstance, INTEGER } from '@duckdb/node-api';
import pg from 'pg';
import { median } from './stats.ts';

export interface ColdAnchor {
  snapshotsMs: number;
  dailyScanMs: number;
}

const SNAPSHOTS_SQL = 'SELECT month, snapshot FROM balance_snapshots WHERE company_id = $1';
const DAILY_SCAN_SQL = 'SELECT COUNT(*) AS n, SUM(cents) AS s FROM balance_daily WHERE company_id = $1';

/** Median milliseconds of each raw query per company (`samples` each, the companies in turn). */
export async function coldAnchors(
  where: { duckdbPath: string } | { databaseUrl: string },
  companyIds: readonly number[],
  samples = 10,
): Promise<Map<number, ColdAnchor>> {
  let run: (sql: string, companyId: number) => Promise<unknown>;
  let close: () => Promise<void>;
  if ('duckdbPath' in where) {
    const instance = await DuckDBInstance.create(where.duckdbPath, { access_mode: 'READ_ONLY' });
    const conn = await instance.connect();
    run = (sql, companyId) => conn.streamAndReadAll(sql, [companyId], [INTEGER]);
    close = async () => {
      conn.closeSync();
      instance.closeSync();
    };
  } else {
    const client = new pg.Client({ connectionString: where.databaseUrl });
    await client.connect();
    run = (sql, companyId) => client.query(sql, [companyId]);
    close = () => client.end();
  }
  const times = new Map(companyIds.map((id) => [id, { snapshots: [] as number[], daily: [] as number[] }]));
  try {
    for (let s = 0; s < samples; s++) {
      for (const id of companyIds) {
        for (const [sql, into] of [
          [SNAPSHOTS_SQL, times.get(id)!.snapshots],
          [DAILY_SCAN_SQL, times.get(id)!.daily],
        ] as const) {
          const t = performance.now();
          await run(sql, id);
          into.push(performance.now() - t);
        }
      }
    }
  } finally {
    await close();
  }
  return new Map([...times].map(([id, t]) => [id, { snapshotsMs: median(t.snapshots), dailyScanMs: median(t.daily) }]));
}
