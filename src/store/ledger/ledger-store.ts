/**
 * The ledger store: one interface, two adapters (DuckDB embedded, PostgreSQL shared).
 * Rows are plain objects; money is integer cents (JS numbers, always safe integers).
 * Dates are calendar dates written `YYYY-MM-DD`; months `YYYY-MM`.
 */
import type { JournalFile } from '../import/journal-file.ts';
import type { IndexStats } from '../memory/index-budget.ts';

export const PNL_ACCOUNT_TYPES = ['Income', 'COGS', 'Expense', 'OtherIncome', 'OtherExpense'] as const;
export const BALANCE_SHEET_ACCOUNT_TYPES = [
  'Bank',
  'AccountsReceivable',
  'OtherCurrentAsset',
  'FixedAsset',
  'OtherAsset',
  'AccountsPayable',
  'CreditCard',
  'OtherCurrentLiability',
  'LongTermLiability',
  'Equity',
] as const;
export type PnlAccountType = (typeof PNL_ACCOUNT_TYPES)[number];
export type AccountType = PnlAccountType | (typeof BALANCE_SHEET_ACCOUNT_TYPES)[number];

export interface Company {
  id: number;
  name: string;
  baseCurrency: string;
  fiscalYearStartMonth: number; // 1-12
  timeZone: string; // IANA
}

export interface Location {
  id: number;
  companyId: number;
  name: string;
}

export interface Account {
  id: number;
  companyId: number;
  number: string | null;
  name: string;
  type: AccountType;
  parentId: number | null;
  isActive: boolean;
  /** The standard (SCoA) account this account maps to, if any. */
  standardAccountId: number | null;
}

export interface StandardAccount {
  id: number;
  companyId: number;
  number: string | null;
  name: string;
  type: AccountType;
  parentId: number | null;
  sortOrder: number;
}

export interface TrackingCategory {
  id: string; // 32 lowercase hex
  companyId: number;
  name: string;
}

export interface TrackingOption {
  id: string; // 32 lowercase hex
  categoryId: string; // 32 lowercase hex
  name: string;
}

/** Everything about a company that the report needs besides the amounts. Small; read per request. */
export interface CompanyCatalog {
  company: Company;
  locations: Location[];
  accounts: Account[];
  standardAccounts: StandardAccount[];
  trackingCategories: TrackingCategory[];
  trackingOptions: TrackingOption[];
}

export interface PnlQuery {
  companyId: number;
  /** Inclusive calendar dates. */
  from: string;
  to: string;
  /** Empty = all locations of the company. */
  locationIds: number[];
  /**
   * Tracking filter: each inner array holds the requested option ids of one category.
   * A line passes when, for every inner array, it carries one of its options (OR within, AND across).
   * Empty = no tracking filter.
   */
  optionGroups: string[][];
}

/** Sum of debit-positive amounts of posted lines on P&L accounts, per account and calendar month. */
export interface AccountMonthTotal {
  accountId: number;
  month: string; // YYYY-MM
  cents: number;
}

export interface JournalLineInput {
  accountId: number;
  /** Debit-positive integer cents. */
  cents: number;
  /** Defaults to the entry's location. */
  locationId?: number;
  /** At most one option per category. */
  trackingOptionIds?: string[];
}

export interface JournalEntryInput {
  /** Optional external reference (e.g. the CSV entry id), used to name the entry in error messages. Not stored. */
  ref?: string;
  companyId: number;
  locationId: number;
  date: string; // YYYY-MM-DD
  memo?: string;
  isPosted?: boolean; // default true
  lines: JournalLineInput[];
}

/** A batch to load atomically: reference data first, then entries. All-or-nothing. */
export interface LedgerBatch {
  companies?: Company[];
  locations?: Location[];
  standardAccounts?: StandardAccount[];
  accounts?: Account[];
  trackingCategories?: TrackingCategory[];
  trackingOptions?: TrackingOption[];
  entries?: JournalEntryInput[];
  /**
   * An entry whose `ref` was already imported for its company replaces the earlier entry (its lines leave every
   * figure) instead of being refused. Off by default: a re-import is refused, never added twice.
   */
  replaceEntries?: boolean;
}

/**
 * A journal to load in bulk (a CSV import): the engine reads the file itself (DuckDB read_csv, PostgreSQL COPY) and
 * set-based SQL checks its rows, against each other and the store (journal-import-sql.ts). All-or-nothing.
 */
export interface JournalLoad {
  /** Reference rows loaded with the journal (no `entries`; `replaceEntries` as for load()). */
  references: LedgerBatch;
  /** The company every entry of the journal belongs to. */
  companyId: number;
  journal: JournalFile;
  /**
   * Told each step of the import as it starts, and how far the engine has read the file when it can say (a progress
   * bar).
   */
  progress?: (at: ImportProgress) => void;
}

/** The steps of an import, in order (journal-import-sql.ts). */
export const IMPORT_STEPS = [
  'reading the file',
  'checking rows',
  'checking entries',
  'staging',
  'writing the ledger',
] as const;

/** Where an import is: step `step` (0-based) of IMPORT_STEPS, `fraction` (0-1) of it done. */
export interface ImportProgress {
  step: number;
  name: (typeof IMPORT_STEPS)[number];
  fraction: number;
}

/** An API key as stored: never the key itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: number;
  name: string;
  /** Lowercase hex SHA-256 of the key. */
  keyHash: string;
  /** The companies the key may read (its scope). */
  companyIds: number[];
  createdAt: Date;
  /** Set once the key is revoked; a revoked key is refused. */
  revokedAt: Date | null;
}

export interface NewApiKey {
  name: string;
  keyHash: string;
  companyIds: number[];
}

/** What one report reads: the company's catalog and its sums, which must agree (one snapshot). */
export interface LedgerView {
  getCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
  sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]>;
}

export interface ReadOptions {
  /** Aborted when the request that asked has timed out: the read stops (rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface LedgerStore {
  readonly kind: 'duckdb' | 'postgres';
  /** Creates the schema if missing. Idempotent. */
  migrate(): Promise<void>;
  /** True when the store holds no company at all (first start). */
  isEmpty(): Promise<boolean>;
  getCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
  sumPnlByAccountMonth(query: PnlQuery): Promise<AccountMonthTotal[]>;
  /**
   * Runs `read` against one consistent state of the ledger, so a load committing meanwhile is seen entirely or not
   * at all (PostgreSQL: a REPEATABLE READ READ ONLY transaction). Stops with the signal's reason once it aborts.
   */
  readSnapshot<T>(read: (view: LedgerView) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * Validates (balanced entries, known references) and writes the batch in one transaction, or throws and writes
   * nothing.
   */
  load(batch: LedgerBatch): Promise<void>;
  /**
   * Loads the batch only into a store that holds no company, deciding under the load lock in the same transaction,
   * so of any number of concurrent callers (instances starting together) exactly one loads. True when it loaded.
   */
  loadIfEmpty(batch: LedgerBatch): Promise<boolean>;
  /**
   * Loads a journal CSV file read by the engine, in one transaction, in memory that does not grow with the file;
   * returns the number of
   * entries. A row the checks refuse throws JournalLineError naming its CSV line; reference rows as load() does.
   */
  loadJournal(load: JournalLoad): Promise<number>;
  /**
   * The secret that signs report links (GetFlatResponse.Url), the same for every instance over this store:
   * read from `settings`, created (random, 256 bits) on first use. Concurrent first calls agree on one value.
   */
  linkSecret(): Promise<string>;
  /**
   * First and last day (YYYY-MM-DD) with P&L figures of the company, by SQL over the pre-aggregates (for tools that
   * exit right after: no in-memory index is built); undefined when it has none.
   */
  pnlSpan(companyId: number): Promise<{ first: string; last: string } | undefined>;
  /**
   * The company's catalog as stored now, by SQL (for tools: no in-memory state is built or kept), or undefined when
   * there is no such company.
   */
  storedCatalog(companyId: number): Promise<CompanyCatalog | undefined>;
  /** Every company, by id (for key scopes and tooling). */
  listCompanies(): Promise<Company[]>;
  /** Stores a new API key (hash and scope) and returns it with its id. */
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  /**
   * Stores the key only when the store holds no key at all, atomically (the demo key: instances started together
   * over one database make one); undefined when a key exists.
   */
  createFirstApiKey(key: NewApiKey): Promise<ApiKeyRecord | undefined>;
  /** The key with this hash, revoked or not, or undefined. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, revoked ones included, by id. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key or it was already revoked. */
  revokeApiKey(id: number): Promise<boolean>;
  /** Cheap reachability probe. */
  ping(): Promise<void>;
  /**
   * Reads ahead what reports read, so the first report does not wait for it (DuckDB: the in-memory pre-aggregates
   * of the first `companies` companies by id, within the index budget). Optional work: the server starts it in the
   * background once it is ready.
   */
  preload(companies?: number): Promise<void>;
  /** The in-memory indexes against their budget (INDEX_MEMORY_MB): what /metrics exports. */
  indexStats(): IndexStats;
  /**
   * Releases the store. With `beforeExit` (the process ends right after) an embedded store only makes its data
   * durable in its file and leaves its handles to the process's end (see DuckDbLedgerStore.close).
   */
  close(options?: { beforeExit?: boolean }): Promise<void>;
}
