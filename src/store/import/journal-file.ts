/**
 * What the engine needs to know of a journal CSV file before it reads the file itself (DuckDB read_csv, PostgreSQL
 * COPY): each header column's place (csv-parse reads the header line), whether a cell may hold a line break, where the
 * content ends. One pass over the bytes refuses, at its line, what the engines would read differently: a blank line
 * between rows (DuckDB skips it, COPY refuses it) and a quote RFC 4180 does not place (DuckDB keeps one inside an
 * unquoted cell as text, COPY opens a quoted section there). A row of another width is refused by the engine's reading.
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
  QUOTE = 0x22,
  COMMA = 0x2c;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

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

/**
 * One walk over a file's quotes, chunk by chunk: it counts them (a line feed is inside a quoted cell when an odd number
 * precede it) and checks where they stand (RFC 4180): a quoted cell opens right after a comma or a line break (or at
 * the file's start) and closes right before one (or at the end); inside it a quote is doubled.
 */
class QuoteWalk {
  /** The quotes walked. */
  quotes = 0;
  /** The offset of the first quote out of place, and why; the walk stops there. */
  misplaced?: { at: number; reason: string };
  private inside = false;
  /** A quote inside a quoted cell that ended its chunk: closing or the first of a pair, told by the next byte. */
  private pendingAt?: number;
  private previous = LF;

  /** Walks `chunk` (at `offset` in the file); returns the first of `lineFeeds` (ascending) outside quotes. */
  read(chunk: Buffer, offset: number, lineFeeds: Iterable<number>): number | undefined {
    if (this.misplaced) return undefined;
    const feeds = lineFeeds[Symbol.iterator]();
    let feed = feeds.next();
    let outside: number | undefined;
    /** Places the line feeds before `end` while the count is that of the quotes before them. */
    const placeBefore = (end: number) => {
      for (; outside === undefined && !feed.done && feed.value < end; feed = feeds.next()) {
        if (this.quotes % 2 === 0) outside = feed.value;
      }
    };
    let from = 0;
    if (this.pendingAt !== undefined && chunk.length > 0) {
      if (chunk[0] !== QUOTE) this.close(this.pendingAt, chunk[0]!);
      else {
        this.quotes++; // the pair's second quote
        from = 1;
      }
      this.pendingAt = undefined;
    }
    for (let q = chunk.indexOf(QUOTE, from); q >= 0 && !this.misplaced; q = chunk.indexOf(QUOTE, q + 1)) {
      placeBefore(q);
      this.quotes++;
      if (!this.inside) {
        const before = q > 0 ? chunk[q - 1]! : this.previous;
        const atFileStart = offset === 0 && (q === 0 || (q === 3 && chunk.subarray(0, 3).equals(BOM)));
        if (!atFileStart && before !== COMMA && before !== LF && before !== CR) {
          this.misplaced = { at: offset + q, reason: 'a quote inside an unquoted cell' };
        }
        this.inside = true;
      } else if (q + 1 === chunk.length) this.pendingAt = offset + q;
      else if (chunk[q + 1] === QUOTE) {
        q++;
        this.quotes++;
      } else this.close(offset + q, chunk[q + 1]!);
    }
    if (!this.misplaced) placeBefore(chunk.length);
    if (chunk.length > 0) this.previous = chunk[chunk.length - 1]!;
    return outside;
  }

  /** The end of the file: a quote pending there closes its cell. */
  end(): void {
    this.pendingAt = undefined;
  }

  private close(at: number, next: number): void {
    this.inside = false;
    if (next !== COMMA && next !== LF && next !== CR) {
      this.misplaced ??= { at, reason: 'text after the closing quote of a quoted cell' };
    }
  }
}

/**
 * The second line feeds of the pairs in `window` (a line feed right after another, a CR between allowed), as offsets
 * in its chunk (the window less its first `tailLength` bytes, the previous chunk's end): a pair may straddle the two.
 */
function* blankLineFeeds(window: Buffer, tailLength: number): Generator<number> {
  for (let from = 0; ; ) {
    const candidates = [window.indexOf('\n\n', from), window.indexOf('\n\r\n', from)].filter((p) => p >= 0);
    if (candidates.length === 0) return;
    const at = Math.min(...candidates);
    const blank = at + (window[at + 1] === CR ? 2 : 1);
    from = at + 1;
    if (blank >= tailLength) yield blank - tailLength; // before it: seen with the previous chunk
  }
}

/**
 * The file's layout: quoted or not, its size without trailing blank lines, and the offset of the first blank line
 * between rows (a line feed right after another, a CR between allowed, outside quotes, with content after it).
 */
async function scan(path: string): Promise<{
  quoted: boolean;
  size: number;
  blankAt?: number;
  nulAt?: number;
  longAt?: number;
  misplacedQuote?: { at: number; reason: string };
}> {
  let offset = 0,
    lastContent = -1,
    lineStart = 0;
  let tail = Buffer.alloc(0);
  let blankAt: number | undefined;
  let nulAt: number | undefined;
  let longAt: number | undefined;
  const quoteWalk = new QuoteWalk();
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    if (nulAt === undefined && chunk.indexOf(NUL) >= 0) nulAt = offset + chunk.indexOf(NUL);
    for (let lf = chunk.indexOf(LF); lf >= 0 && longAt === undefined; lf = chunk.indexOf(LF, lf + 1)) {
      if (offset + lf - lineStart > MAX_LINE_BYTES) longAt = lineStart;
      lineStart = offset + lf + 1;
    }
    if (longAt === undefined && offset + chunk.length - lineStart > MAX_LINE_BYTES) longAt = lineStart;
    const window = Buffer.concat([tail, chunk]); // a pair of line breaks may straddle two chunks
    const blank = quoteWalk.read(chunk, offset, blankAt === undefined ? blankLineFeeds(window, tail.length) : []);
    if (blankAt === undefined && blank !== undefined) blankAt = offset + blank;
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== LF && chunk[i] !== CR) {
        lastContent = offset + i;
        break;
      }
    }
    tail = window.subarray(Math.max(0, window.length - 2));
    offset += chunk.length;
  }
  quoteWalk.end();
  return {
    misplacedQuote: quoteWalk.misplaced,
    quoted: quoteWalk.quotes > 0,
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
  const { quoted, size, blankAt, nulAt, longAt, misplacedQuote } = await scan(path);
  // The earliest problem is named (a line too long, a NUL byte, a quote out of place, a blank line between rows; on a
  // tie, in that order).
  const problems: [number | undefined, string][] = [
    [longAt, `a line longer than ${MAX_LINE_BYTES} bytes; a journal's line (with every cell on it) is at most that`],
    [nulAt, 'a NUL byte (0x00): a journal is UTF-8 text'],
    [
      misplacedQuote?.at,
      `malformed CSV: ${misplacedQuote?.reason} ` +
        '(a cell with a quote is quoted whole, its quotes doubled: "a 6"" pipe")',
    ],
    [blankAt, 'malformed CSV: an empty line between rows (every line after the header must be a journal row)'],
  ];
  const [at, reason] = problems
    .filter((p): p is [number, string] => p[0] !== undefined)
    .sort((x, y) => x[0] - y[0])[0] ?? [undefined, ''];
  if (at !== undefined) throw new JournalLineError(await lineAt(path, at), reason);
  return { path, width: header.length, header, columns, quoted, size };
}
