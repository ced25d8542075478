/** A company's daily sums read from DuckDB into the in-memory index. */
import { type DuckDBConnection, INTEGER } from '@duckdb/node-api';
import { CompanyBalances } from '../memory/balance-index.ts';
import type { BuildTimes } from '../memory/index-budget.ts';

/**
 * A company's balance_daily rows, read column by column into the in-memory index; undefined when some daily sum is
 * beyond 2^53 cents (such a company is answered by SQL, which reports the unsafe amount).
 */
export async function readBalances(
  conn: DuckDBConnection,
  companyId: number,
  times: BuildTimes,
): Promise<CompanyBalances | undefined> {
  let at = performance.now();
  // Ordered so that consecutive rows share their month and cell: the index then looks each cell up once per month.
  // Streamed, chunk by chunk (connections.ts): no materialized copy of the company's rows in native memory.
  const result = await conn.stream(
    `SELECT CAST(year(day) * 12 + month(day) - 1 AS INTEGER) AS month_index, CAST(day(day) AS INTEGER) AS day_of_month,
            location_id, account_id, tag_set_id, CAST(cents AS DOUBLE) AS cents
       FROM balance_daily WHERE company_id = $1
      ORDER BY month_index, location_id, account_id, tag_set_id`,
    [companyId],
    [INTEGER],
  );
  const balances = new CompanyBalances();
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const columns = [0, 1, 2, 3, 4, 5].map((i) => chunk!.getColumnValues(i) as number[]);
    const read = performance.now();
    times.readMs += read - at;
    const exact = balances.addColumns(columns, chunk.rowCount);
    at = performance.now();
    times.indexMs += at - read;
    if (!exact) return undefined;
  }
  times.readMs += performance.now() - at;
  balances.compact();
  return balances;
}
