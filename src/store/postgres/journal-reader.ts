/** How PostgreSQL reads a journal CSV file into import_rows (COPY), and its refusals as the import's own. */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cellCountReason, JournalLineError } from '../ledger/errors.ts';
import type { JournalFile } from '../ledger/writer.ts';
import type { JournalReader, RowsReading } from '../sql/journal-import/rows.ts';

/**
 * PostgreSQL reads the journal file itself: COPY FROM STDIN (CSV, header skipped) into import_csv, every cell as text,
 * each row numbered in the file's order by an identity column; import_rows (with each row's line) is made from it
 * (journal-import-sql.ts). The rows are written frozen (the table is new in this transaction), so reading them back
 * skips the visibility check of rows of the current transaction.
 * `progress` follows the bytes sent.
 */
export function journalReader(client: pg.PoolClient): JournalReader {
  return {
    dialect: 'postgres',
    async read(journal, createRows, progress) {
      const columns = Array.from({ length: journal.width }, (_, i) => `c${i}`);
      await client.query(
        `CREATE TEMP TABLE import_csv (ord BIGINT GENERATED ALWAYS AS IDENTITY (MINVALUE 0 START WITH ` +
          `0), ${columns.map((c) => `${c} text`).join(', ')})`,
      );
      const file = createReadStream(journal.path, { end: journal.size - 1, highWaterMark: 1 << 20 });
      if (progress) file.on('data', () => progress(file.bytesRead / journal.size));
      try {
        await pipeline(
          file,
          client.query(
            copyFrom(`COPY import_csv (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv, HEADER true, FREEZE true)`),
          ),
        );
      } catch (err) {
        throw malformedCopy(err, journal) ?? err;
      }
      await createImportRows(client, (reading) => createRows('import_csv', 'ord', reading));
      await client.query('DROP TABLE import_csv');
      return {};
    },
  };
}

/**
 * import_rows by the cast-first reading (journal-import-sql.ts CAST_FIRST) in a savepoint; when a cell's cast fails
 * (SQLSTATE class 22, a bad cell), by the checks alone, which name its line.
 */
async function createImportRows(client: pg.PoolClient, createRows: (reading: RowsReading) => string): Promise<void> {
  await client.query('SET LOCAL DateStyle = ISO');
  await client.query('SAVEPOINT cast_first');
  try {
    await client.query(createRows({ castFirst: true }));
    await client.query('RELEASE SAVEPOINT cast_first');
  } catch (err) {
    if (!/^22/.test(String((err as { code?: unknown }).code))) throw err;
    await client.query('ROLLBACK TO SAVEPOINT cast_first');
    await client.query(createRows({ castFirst: false }));
  }
}

/** COPY's refusal of a malformed row (its `where` names the line) as the import's own, naming the header's columns. */
function malformedCopy(err: unknown, journal: JournalFile): JournalLineError | undefined {
  const { message, where } = err as { message?: string; where?: string };
  const line = /^COPY import_csv, line (\d+)/.exec(where ?? '')?.[1];
  if (line === undefined || message === undefined) return undefined;
  if (/^(extra data after last expected column|missing data for column)/.test(message))
    return new JournalLineError(Number(line), cellCountReason(message.startsWith('extra'), journal.width));
  return new JournalLineError(
    Number(line),
    `malformed CSV: ${message.replace(/"c(\d+)"/g, (_m, i: string) => `"${journal.header[Number(i)] ?? ''}"`)}`,
  );
}
