/** The minimal SQL surface the shared store logic needs from an adapter. Placeholders are `$1…$n` in both dialects. */
export type SqlParam = string | number | boolean | null | readonly number[] | readonly string[];
export type SqlRow = Record<string, unknown>;

export interface SqlSession {
  query(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]>;
}

/**
 * Runs `fn` in one transaction (`begin` opens it): COMMIT after it, ROLLBACK (its own failure ignored) on any error.
 */
export async function inTransaction<T>(s: SqlSession, fn: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await s.query(begin);
  try {
    const result = await fn();
    await s.query('COMMIT');
    return result;
  } catch (err) {
    await s.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Columnar rows to stage for one load; filled by batch-staging.ts, written in bulk by the adapter. */
export interface Staging {
  entries: {
    id: number[];
    companyId: number[];
    locationId: number[];
    date: string[];
    memo: (string | null)[];
    posted: boolean[];
    ref: (string | null)[];
  };
  lines: {
    id: number[];
    entryId: number[];
    companyId: number[];
    locationId: number[];
    accountId: number[];
    tagSetId: number[];
    date: string[];
    posted: boolean[];
    cents: number[];
  };
}

/** Adapter-specific bulk writer: creates the stage tables (schema.ts STAGE_DDL) and fills them. */
export type StagingWriter = (session: SqlSession, staging: Staging) => Promise<void>;

export const int = (v: unknown): number => {
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : (v as number);
  if (!Number.isSafeInteger(n)) throw new TypeError(`expected an integer from the database, got ${String(v)}`);
  return n;
};
export const str = (v: unknown): string => String(v);
export const strOrNull = (v: unknown): string | null => (v == null ? null : String(v));
export const intOrNull = (v: unknown): number | null => (v == null ? null : int(v));
