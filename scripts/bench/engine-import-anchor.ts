/**
 * The engine's own time for an import's work (issue 23's anchor), run as a child of bench-report.ts so its peak RSS
 * is its own: read the journal CSV into a table (DuckDB read_csv; PostgreSQL COPY), check that every entry balances,
 * and build the monthly and daily sums per location, account and tag set.
 *   tsx scripts/bench/engine-import-anchor.ts duckdb <journal.csv> <file.duckdb>
 *   tsx scripts/bench/engine-import-anchor.ts postgres <journal.csv> <database url>
 */
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { JOURNAL_COLUMNS } from '../../src/store/ledger/writer.ts';

const [kind, journal, target] = process.argv.slice(2);
if ((kind !== 'duckdb' && kind !== 'postgres') || !journal || !target) {
  console.error('usage: engine-import-anchor.ts duckdb|postgres <journal.csv> <file.duckdb | database url>');
  process.exit(2);
}
const quoted = `'${journal.replace(/'/g, "''")}'`;

const WORK = {
  duckdb: [
    `CREATE TABLE j AS SELECT * FROM read_csv(${quoted}, header = true, all_varchar = true)`,
    `CREATE TABLE jl AS SELECT entry, CAST(date AS DATE) AS day, CAST(location AS INTEGER) AS location, CAST(account AS
      INTEGER) AS account,
       CAST(round(CAST(amount AS DECIMAL(18, 2)) * 100) AS BIGINT) AS cents, options, posted = 'true' AS posted FROM j`,
  ],
  postgres: [
    `CREATE TABLE j (${JOURNAL_COLUMNS.map((column) => `${column} text`).join(', ')})`,
    `COPY j FROM ${quoted} WITH (FORMAT csv, HEADER true)`,
    `CREATE TABLE jl AS SELECT entry, CAST(date AS DATE) AS day, CAST(location AS INTEGER) AS location, CAST(account AS
      INTEGER) AS account,
       CAST(round(CAST(amount AS NUMERIC(18, 2)) * 100) AS BIGINT) AS cents, options, posted = 'true' AS posted FROM j`,
  ],
}[kind];

const CHECKS = [
  'SELECT entry FROM jl GROUP BY entry HAVING SUM(cents) <> 0 LIMIT 1',
  `CREATE TABLE monthly AS SELECT date_trunc('month', day) AS month, location, account, options, SUM(cents) AS cents
     FROM jl WHERE posted GROUP BY 1, 2, 3, 4`,
  'CREATE TABLE daily AS SELECT day, location, account, options, SUM(cents) AS cents FROM jl WHERE posted GROUP ' +
    'BY 1, 2, 3, 4',
];

const started = performance.now();
if (kind === 'postgres') {
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  await client.query('BEGIN');
  for (const sql of [...WORK, ...CHECKS]) await client.query(sql);
  await client.query('COMMIT');
  await client.end();
} else {
  const instance = await DuckDBInstance.create(target);
  const conn = await instance.connect();
  await conn.run('BEGIN TRANSACTION');
  for (const sql of [...WORK, ...CHECKS]) await conn.run(sql);
  await conn.run('COMMIT');
  conn.closeSync();
}
console.log(`engine-ms ${Math.round(performance.now() - started)}`);
