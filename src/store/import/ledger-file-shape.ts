/**
 * What a ledger file looks like, read from its first bytes before the CSV parser sees it: a JSON document, a
 * spreadsheet (XLSX is a ZIP archive), XML/HTML, an empty file, or a CSV separated by `;` or tabs (a spreadsheet's
 * export in many locales). The parser would answer `Invalid Opening Quote` or `missing column(s)` for these; this
 * says what the file is and what the import expects, from the file's first HEAD_BYTES.
 */
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
  {
    matches: (head) => head.startsWith('PK\u0003\u0004'),
    looksLike: () => 'is a ZIP archive (an XLSX workbook?): save the sheet as CSV',
  },
  {
    matches: (head) => /^\s*[[{]/.test(head),
    looksLike: (head) => `looks like JSON (it starts with '${head.trimStart()[0]}'): export the ledger as CSV`,
  },
  {
    matches: (head) => /^\s*</.test(head),
    looksLike: () => "looks like XML or HTML (it starts with '<'): export the ledger as CSV",
  },
  {
    matches: (_head, line) => !line.includes(',') && /[;\t|]/.test(line),
    looksLike: (_head, line) => {
      const separator = [';', '\t', '|'].find((s) => line.includes(s))!;
      return (
        `is separated by ${separator === '\t' ? 'tabs' : `'${separator}'`} (its header: '${line.slice(0, 80)}'): ` +
        `save it with commas as separators`
      );
    },
  },
];

/** The reason a file of this beginning cannot be a ledger CSV, or undefined when it may be one. */
export function foreignShapeOf(head: string, file: LedgerFile): string | undefined {
  const text = head.replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0]!.trim();
  const shape = FOREIGN_SHAPES.find((s) => s.matches(text, firstLine));
  return (
    shape &&
    `the ${file} file ${shape.looksLike(text, firstLine)}; expected a comma-separated CSV file whose first line ` +
      `is the header ${EXPECTED_HEADER[file]}`
  );
}

/**
 * Checks the shape of the journal (its first bytes) and of the reference text, before they are parsed; `refuse` makes
 * the error thrown (the import's own, naming the file).
 */
export function checkLedgerFileShapes(
  journalHead: string,
  reference: string | undefined,
  refuse: (file: LedgerFile, reason: string) => Error,
): void {
  const referenceShape =
    reference === undefined ? undefined : foreignShapeOf(reference.slice(0, HEAD_BYTES), 'reference');
  if (referenceShape) throw refuse('reference', referenceShape);
  const journalShape = foreignShapeOf(journalHead.slice(0, HEAD_BYTES), 'journal');
  if (journalShape) throw refuse('journal', journalShape);
}
