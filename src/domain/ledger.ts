/**
 * The ledger's domain: companies and their reference rows, journal entries, the P&L query and its monthly sums.
 * Rows are plain objects; money is integer cents (JS numbers, always safe integers). Dates are calendar dates written
 * `YYYY-MM-DD`; months `YYYY-MM`. The report engine and the store both speak these types.
 */
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

/** What an account and a standard (SCoA) account both have. */
interface ChartAccount {
  id: number;
  companyId: number;
  number: string | null;
  name: string;
  type: AccountType;
  parentId: number | null;
}

export interface Account extends ChartAccount {
  isActive: boolean;
  /** The standard (SCoA) account this account maps to, if any. */
  standardAccountId: number | null;
}

export interface StandardAccount extends ChartAccount {
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
