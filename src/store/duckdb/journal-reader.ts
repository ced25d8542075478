/** How DuckDB reads a journal CSV file into import_rows (read_csv), and its refusals as the import's own. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { cellCountReason, JournalLineError } from '../ledger/errors.ts';
import type { JournalReader } from '../sql/journal-import/rows.ts';

/**
 * Runs an import with the file read in parallel; when it is refused, runs it again (after its rollback) with the file
 * read in the file's order, which names the refused row's own line. A parallel read of a file of several buffers
 * inserts rows out of the file's order (insertion order kept or not), so there a row's rowid is not its ordinal.
 */
export async function refusedInFileOrder<T>(
  conn: DuckDBConnection,
  run: (reader: JournalReader) => Promise<T>,
): Promise<T> {
  try {
    return await run(journalReader(conn, { inFileOrder: false }));
  } catch (err) {
    if (!(err instanceof JournalLineError)) throw err;
    return await run(journalReader(conn, { inFileOrder: true }));
  }
}

/**
 * DuckDB reads the journal file itself (read_csv: every cell as text, the options set, no sniffing), straight into
 * import_rows (journal-import-sql.ts); `inFileOrder`, by one thread (parallel = false), in the file's order, so a row's
 * rowid gives its ordinal (refusedInFileOrder). It tells no share of the file read: DuckDB's query progress stays
 * unknown (-1) for this statement.
 * Its strict mode refuses a row with two or more extra cells, but reads one whose extra cells are all empty as if they
 * were not there: so it reads one column more than the header (`padded`), missing cells as NULL (null_padding) and
 * empty ones as '' (no string is NULL: nullstr is a NUL byte, which the file cannot hold), and the row checks refuse a
 * row of another width (rows.ts).
 */
function journalReader(conn: DuckDBConnection, { inFileOrder }: { inFileOrder: boolean }): JournalReader {
  return {
    dialect: 'duckdb',
    async read(journal, createRows) {
      const columns = Array.from({ length: journal.width + 1 }, (_, i) => `'c${i}': 'VARCHAR'`).join(', ');
      const path = `'${journal.path.replace(/'/g, "''")}'`;
      try {
        await conn.run(
          createRows(
            `read_csv(${path}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
          columns = {${columns}}, strict_mode = true, null_padding = true, nullstr = chr(0),
          parallel = ${!inFileOrder})`,
            undefined,
            { padded: true },
          ),
        );
      } catch (err) {
        throw malformedCsv(err, journal.width) ?? err;
      }
      // Rows written in this transaction are numbered from a base of DuckDB's (not 0), contiguously in insertion order.
      const [base] = (
        await conn.runAndReadAll('SELECT CAST(COALESCE(MIN(rowid), 0) AS VARCHAR) AS b FROM import_rows')
      ).getRowObjectsJS();
      // Every later table is keyed, not read in order: without keeping it, DuckDB's inserts need far less memory.
      await conn.run('SET preserve_insertion_order = false');
      return { ordinal: `(rowid - ${BigInt(String(base?.b ?? 0))})` };
    },
  };
}

/**
 * DuckDB's refusal of a malformed CSV row ("CSV Error on Line: N", the row, then the reason) as the import's own; one
 * of more cells than it reads (the header's `width` and one) has more than the header.
 */
function malformedCsv(err: unknown, width: number): JournalLineError | undefined {
  const message = String((err as Error | undefined)?.message ?? err);
  const line = /CSV Error on Line: (\d+)/.exec(message)?.[1];
  if (line === undefined) return undefined;
  const rest = message.split('\n');
  const reason = rest
    .slice(rest.findIndex((l) => l.startsWith('Original Line:')) + 1)
    .find((l) => l.trim() !== '')
    ?.trim();
  const count = /Expected Number of Columns: (\d+) Found: (\d+)/.exec(message);
  if (count) return new JournalLineError(Number(line), cellCountReason(Number(count[2]) > width, width));
  return new JournalLineError(Number(line), `malformed CSV: ${reason ?? 'the row cannot be read'}`);
}
