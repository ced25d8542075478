/** A batch as validation leaves it: canonical GUIDs, sorted options, each line's tag-set key, defaults filled in. */
import type {
  Account,
  Company,
  Location,
  StandardAccount,
  TrackingCategory,
  TrackingOption,
} from '../../domain/ledger.ts';

export interface NormalizedLine {
  accountId: number;
  locationId: number;
  cents: number;
  /** Sorted canonical option ids. */
  optionIds: string[];
  tagKey: string;
}

export interface NormalizedEntry {
  companyId: number;
  locationId: number;
  date: string;
  memo: string | null;
  isPosted: boolean;
  /** The entry id the import named (kept per company; see sql/load-sql.ts), or null. */
  ref: string | null;
  lines: NormalizedLine[];
}

export interface NormalizedBatch {
  companies: Company[];
  locations: Location[];
  standardAccounts: StandardAccount[];
  accounts: Account[];
  trackingCategories: TrackingCategory[];
  trackingOptions: TrackingOption[];
  entries: NormalizedEntry[];
}
