/**
 * What a ledger file looks like, read from its first bytes before the CSV parser sees it: a JSON document, a
 * spreadsheet (XLSX is a ZIP archive), XML/HTML, an empty file, or a CSV separated by `;` or tabs (a spreadsheet's
 * export in many locales). The parser would answer `Invalid Opening Quote` or `missing column(s)` for these; this
 * says what the file is and what the import expects. A stream is read only as far as its first line (at most
 * HEAD_BYTES) and handed back whole.
 */
import { Readable } from 'node:stream';

type LedgerFile = 'journal' | 'reference';

/** The header the import expects of each file (scripts/import-format.md). */
const EXPECTED_HEADER: Record<LedgerFile, string> = {
  journal: 'entry,date,location,account,amount (then options, memo, posted if used)',
  reference: 'kind,id,company_id,name,... (one row per company, location, account, ...)',
};

const HEAD_BYTES = 4096;

/** One shape the import does not read: does the file's beginning look like it, and what to say. */
interface ForeignShape {
  matches(head: string, firstLine: string): boolean;
  looksLike(head: string, firstLine: string): string;
}

const FOREIGN_SHAPES: readonly ForeignShape[] = [
  { matches: (head) => head.trim() === '', looksLike: () => 'is empty' },
  { matches: (head) => head.startsWith('PK\u0003\u0004'), looksLike: () => 'is a ZIP archive (an XLSX workbook?): save the sheet as CSV' },
  { matches: (head) => /^\s*[[{]/.test(head), looksLike: (head) => `looks like JSON (it starts with '${head.trimStart()[0]}'): export the ledger as CSV` },
  { matches: (head) => /^\s*</.test(head), looksLike: () => 'looks like XML or HTML (it starts with \'<\'): export the ledger as CSV' },
  {
    matches: (_head, line) => !line.includes(',') && /[;\t|]/.test(line),
    looksLike: (_head, line) => {
      const separator = [';', '\t', '|'].find((s) => line.includes(s))!;
      return `is separated by ${separator === '\t' ? 'tabs' : `'${separator}'`} (its header: '${line.slice(0, 80)}'): save it with commas as separators`;
    },
  },
];

/** The reason a file of this beginning cannot be a ledger CSV, or undefined when it may be one. */
export function foreignShapeOf(head: string, file: LedgerFile): string | undefined {
  const text = head.replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0]!.trim();
  const shape = FOREIGN_SHAPES.find((s) => s.matches(text, firstLine));
  return shape && `the ${file} file ${shape.looksLike(text, firstLine)}; expected a comma-separated CSV file whose first line is the header ${EXPECTED_HEADER[file]}`;
}

/** The first bytes of a stream (up to its first line break or HEAD_BYTES), and a stream that still yields all of it. */
async function peek(input: Readable): Promise<{ head: string; whole: Readable }> {
  const chunks: Buffer[] = [];
  let length = 0;
  const iterator = input[Symbol.asyncIterator]();
  while (length < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(String(next.value));
    chunks.push(chunk);
    length += chunk.length;
    if (chunk.includes(0x0a)) break;
  }
  const head = Buffer.concat(chunks);
  async function* whole() {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
  }
  return { head: head.subarray(0, HEAD_BYTES).toString('utf8'), whole: Readable.from(whole(), { objectMode: false }) };
}

/**
 * Checks the shape of the journal (text or stream) and of the reference text, before they are parsed; `refuse` makes
 * the error thrown (the import's own, naming the file). Returns the journal to parse (a stream is handed back whole).
 */
export async function checkLedgerFileShapes<J extends string | Readable>(
  journal: J, reference: string | undefined, refuse: (file: LedgerFile, reason: string) => Error,
): Promise<J> {
  const referenceShape = reference === undefined ? undefined : foreignShapeOf(reference.slice(0, HEAD_BYTES), 'reference');
  if (referenceShape) throw refuse('reference', referenceShape);
  const { head, whole } = typeof journal === 'string' ? { head: journal.slice(0, HEAD_BYTES), whole: journal } : await peek(journal);
  const journalShape = foreignShapeOf(head, 'journal');
  if (journalShape) throw refuse('journal', journalShape);
  return whole as J;
}
