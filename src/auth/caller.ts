/** Who is calling: anonymous (no API key) or the holder of a key scoped to some companies. */
export interface Caller {
  /** The first company of the key's scope, or the configured default name for anonymous callers. */
  companyName: string;
  /** The companies the caller may read; empty for anonymous callers. */
  companyIds: readonly number[];
  /** The API key's id; undefined for anonymous callers. */
  keyId?: number;
  /** Every company is readable without a key (AUTH=none). */
  anyCompany?: boolean;
}
