/** The shapes `npm run compare` passes between its parts: requests to replay, answers captured, differences found. */

/** Where a request came from: a source file and line, or a rule of the built-in battery. */
export interface RequestOrigin {
  source: string;
  file?: string;
  line?: number;
  /** The battery rule (e.g. `op:GetFlat:200`, `binder:GetFlat:Locations=[1,2]`). */
  rule?: string;
}

export interface ReplayRequest {
  method: string;
  /** Path and query, relative to each host's base URL. */
  url: string;
  headers: Record<string, string>;
  /** Text as recorded, or the bytes (a body that is not UTF-8 text is sent as it came, byte for byte). */
  body?: string | Uint8Array<ArrayBuffer>;
  /** Sent without the API key headers given per host (a 401 rule, or an anonymous call of a public operation). */
  anonymous?: boolean;
  origin: RequestOrigin;
}

/** A line (or HAR entry) a source could not read: reported with its line number and skipped. */
export interface SourceIssue {
  file: string;
  line: number;
  reason: string;
}

export interface SourceResult {
  requests: ReplayRequest[];
  issues: SourceIssue[];
}

/** One host's answer, base URL already replaced by `{host}` in header values and text bodies. */
export interface Captured {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Text bodies as text; other bodies as base64 (see `binary`). */
  body: string;
  binary?: boolean;
  /** A transport failure or time-out (status 0). */
  error?: string;
  ms: number;
}

export type DiffKind = 'changed' | 'added' | 'removed';

/**
 * One difference between two answers at one place: `status`, `header Vary`, or a body path
 * `$.ReportModel.Rows[3].Name`.
 */
export interface FieldDiff {
  /** Display path. */
  path: string;
  /** Body paths as segments (`$` first) for rule matching; absent for status and headers. */
  segments?: (string | number)[];
  kind: DiffKind;
  old?: unknown;
  new?: unknown;
  /**
   * Why a noise difference is noise: a built-in volatile field (`report link signature`) or `differs between the old
   * answers`.
   */
  why?: string;
}

export type Outcome = 'identical' | 'noise-only' | 'allowed-only' | 'different' | 'skipped';

export interface AnswerSummary {
  status: number;
  contentType?: string;
  error?: string;
  ms: number;
}

export interface ExchangeRecord {
  id: number;
  request: { method: string; url: string; origin: ReplayRequest['origin'] };
  endpoint: string;
  outcome: Outcome;
  skipped?: string;
  old?: AnswerSummary;
  old2?: AnswerSummary;
  new?: AnswerSummary;
  comparer?: string;
  differences: FieldDiff[];
  noise: FieldDiff[];
  allowed: (FieldDiff & { rule: string })[];
  /** Pretty bodies (old, new) of exchanges with differences, for the side-by-side view. */
  bodies?: { old: string; new: string };
}
