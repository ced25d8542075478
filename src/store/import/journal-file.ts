/**
 * What the engine needs to know of a journal CSV file before it reads the file itself (DuckDB read_csv, PostgreSQL
 * COPY): each header column's place (csv-parse reads the header line), whether a cell may hold a line break, where the
 * content ends. One pass over the bytes refuses, at its line, what the engines would read differently: a blank line
 * between rows (DuckDB skips it, COPY refuses it). A row of another width is refused by the engine's reading.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { JournalLineError } from '../ledger/errors.ts';
import { JOURNAL_COLUMNS, type JournalFile } from '../ledger/writer.ts';

const REQUIRED = JOURNAL_COLUMNS.slice(0, 5);
/**
 * What both stores refuse alike, before either engine reads the file (each has limits of its own, met differently: a
 * PostgreSQL table has at most 1600 columns, DuckDB's CSV reader a 2 MB line, PostgreSQL's text no NUL).
 */
export const MAX_JOURNAL_COLUMNS = 100;
export const MAX_LINE_BYTES = 1_048_576;
const NUL = 0x00;

const LF = 0x0a,
  CR = 0x0d,
  QUOTE = 0x22;

/** The first line of the file (at most `max` bytes), as text. */
export async function readHead(path: string, max = 65_536): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The header's names (trimmed, lower-cased) and each journal column's position; missing required ones are refused. */
function readHeader(head: string): { header: string[]; columns: JournalFile['columns'] } {
  let header: string[] = [];
  try {
    const [first] = parse(head, { bom: true, to_line: 1, relax_column_count: true }) as string[][];
    header = (first ?? []).map((c) => c.trim().toLowerCase());
  } catch (err) {
    throw new JournalLineError(1, `malformed CSV: ${(err as Error).message}`);
  }
  if (header.length > MAX_JOURNAL_COLUMNS)
    throw new JournalLineError(
      1,
      `the header has ${header.length} columns; a journal has at most ${MAX_JOURNAL_COLUMNS}`,
    );
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new JournalLineError(1, `missing column(s): ${missing.join(', ')}`);
  const columns: JournalFile['columns'] = {};
  for (const c of JOURNAL_COLUMNS) if (header.includes(c)) columns[c] = header.indexOf(c);
  return { header, columns };
}

/** Quotes in buf[from, to). */
function countQuotes(buf: Buffer, from = 0, to = buf.length): number {
  let n = 0;
  for (let q = buf.indexOf(QUOTE, from); q >= 0 && q < to; q = buf.indexOf(QUOTE, q + 1)) n++;
  return n;
}

/**
 * The file's layout: quoted or not, its size without trailing blank lines, and the offset of the first blank line
 * between rows (a line feed right after another, a CR between allowed, outside quotes, with content after it).
 * A line feed is inside a quoted cell when an odd number of quotes precede it.
 */
async function scan(path: string): Promise<{
  quoted: boolean;
  size: number;
  blankAt?: number;
  nulAt?: number;
  longAt?: number;
}> {
  let offset = 0,
    quotes = 0,
    lastContent = -1,
    lineStart = 0;
  let tail = Buffer.alloc(0);
  let blankAt: number | undefined;
  let nulAt: number | undefined;
  let longAt: number | undefined;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    if (nulAt === undefined && chunk.indexOf(NUL) >= 0) nulAt = offset + chunk.indexOf(NUL);
    for (let lf = chunk.indexOf(LF); lf >= 0 && longAt === undefined; lf = chunk.indexOf(LF, lf + 1)) {
      if (offset + lf - lineStart > MAX_LINE_BYTES) longAt = lineStart;
      lineStart = offset + lf + 1;
    }
    if (longAt === undefined && offset + chunk.length - lineStart > MAX_LINE_BYTES) longAt = lineStart;
    const window = Buffer.concat([tail, chunk]); // a pair of line breaks may straddle two chunks
    for (let from = 0; blankAt === undefined; ) {
      const candidates = [window.indexOf('\n\n', from), window.indexOf('\n\r\n', from)].filter((p) => p >= 0);
      if (candidates.length === 0) break;
      const at = Math.min(...candidates);
      const blank = at + (window[at + 1] === CR ? 2 : 1); // the second line feed
      from = at + 1;
      if (blank < tail.length) continue; // seen with the previous chunk
      if ((quotes + countQuotes(chunk, 0, blank - tail.length)) % 2 === 0) blankAt = offset + blank - tail.length;
    }
    quotes += countQuotes(chunk);
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== LF && chunk[i] !== CR) {
        lastContent = offset + i;
        break;
      }
    }
    tail = window.subarray(Math.max(0, window.length - 2));
    offset += chunk.length;
  }
  return {
    quoted: quotes > 0,
    size: lastContent + 1,
    blankAt: blankAt !== undefined && blankAt < lastContent ? blankAt : undefined,
    nulAt,
    longAt,
  };
}

/** The CSV line of a byte offset: 1 + the line feeds before it. */
async function lineAt(path: string, offset: number): Promise<number> {
  let line = 1;
  if (offset === 0) return line;
  for await (const chunk of createReadStream(path, {
    end: offset - 1,
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) line++;
  }
  return line;
}

/** Reads the header and scans the file; refuses a missing column or a blank line between rows, naming its line. */
export async function describeJournalFile(path: string, head: string): Promise<JournalFile> {
  const { header, columns } = readHeader(head);
  const { quoted, size, blankAt, nulAt, longAt } = await scan(path);
  // The earliest problem is named: a line too long, a NUL byte, or a blank line between rows.
  const problems: [number | undefined, string][] = [
    [longAt, `a line longer than ${MAX_LINE_BYTES} bytes; a journal's line (with every cell on it) is at most that`],
    [nulAt, 'a NUL byte (0x00): a journal is UTF-8 text'],
  ];
  const [at, reason] = problems
    .filter((p): p is [number, string] => p[0] !== undefined && (blankAt === undefined || p[0] <= blankAt))
    .sort((x, y) => x[0] - y[0])[0] ?? [undefined, ''];
  if (at !== undefined) throw new JournalLineError(await lineAt(path, at), reason);
  if (blankAt !== undefined) {
    throw new JournalLineError(
      await lineAt(path, blankAt),
      'malformed CSV: an empty line between rows (every line after the header must be a journal row)',
    );
  }
  return { path, width: header.length, header, columns, quoted, size };
}
