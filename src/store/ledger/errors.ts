/** Errors raised by the ledger store, distinguishable by class so the HTTP layer can map them (503, 400, …). */

/** The database cannot be reached (refused, terminated, timed out). Retry later; the store recovers by itself. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Where a validation issue was found in a LedgerBatch (indices are 0-based positions in the batch arrays). */
export type BatchLocation =
  | { kind: 'entry'; entryIndex: number; lineIndex?: number }
  | {
      kind: 'companies' | 'locations' | 'standardAccounts' | 'accounts' | 'trackingCategories' | 'trackingOptions';
      index: number;
    };

export interface BatchIssue {
  at: BatchLocation;
  message: string;
}

/** The batch was refused; nothing was written. `issues` lists every problem found (capped). */
export class LedgerValidationError extends Error {
  override readonly name = 'LedgerValidationError';
  readonly issues: BatchIssue[];
  constructor(issues: BatchIssue[]) {
    const first = issues
      .slice(0, 3)
      .map((i) => i.message)
      .join('; ');
    const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
    super(`ledger batch refused: ${first}${more}`);
    this.issues = issues;
  }
}

/** An amount does not fit a JS safe integer (cents). */
export class UnsafeAmountError extends Error {
  override readonly name = 'UnsafeAmountError';
}

/**
 * `line N: reason`, or `line N (entry R, D, its 2nd line): reason` when the reason starts by naming the entry in
 * parentheses: one kind of "line" per sentence, the file's, the entry's own line counted apart.
 */
export function atLine(line: number, reason: string): string {
  return `line ${line}${reason.startsWith('(') ? ' ' : ': '}${reason}`;
}

/** "1st", "2nd", "3rd", "4th", "11th", "22nd". */
export function ordinal(n: number): string {
  const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th' } as Record<string, string>;
  return `${n}${suffix[new Intl.PluralRules('en', { type: 'ordinal' }).select(n)] ?? 'th'}`;
}

/** A journal import was refused at one CSV line (set-based checks of journal-import-sql.ts); nothing was written. */
export class JournalLineError extends Error {
  override readonly name = 'JournalLineError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(atLine(line, reason));
  }
}

/**
 * A row with another number of cells than the header, in the same words whichever engine found it (DuckDB's
 * "Expected Number of Columns", PostgreSQL's "extra data after last expected column" or "missing data for column").
 */
export function cellCountReason(more: boolean, headerCells: number): string {
  return `malformed CSV: ${more ? 'more' : 'fewer'} cells than the header's ${headerCells}`;
}
