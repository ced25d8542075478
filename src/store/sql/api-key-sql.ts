/** API keys and company listing (shared SQL for both dialects). Only hashes are stored, never keys. */
import type { ApiKeyRecord, NewApiKey } from '../ledger/api-keys.ts';
import type { Company } from '../../domain/ledger.ts';
import { int, str, type SqlRow, type SqlSession } from './session.ts';

function toDate(v: unknown): Date {
  if (v instanceof Date) return v;
  // DuckDB returns TIMESTAMP as a JS Date via getRowObjectsJS; strings are ISO without zone (stored as UTC).
  const text = String(v);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

function toRecord(row: SqlRow, companyIds: number[]): ApiKeyRecord {
  return {
    id: int(row.id),
    name: str(row.name),
    keyHash: str(row.key_hash),
    companyIds,
    createdAt: toDate(row.created_at),
    revokedAt: row.revoked_at == null ? null : toDate(row.revoked_at),
  };
}

/** Timestamps are written as UTC text so that both dialects store the same wall time. */
function utcText(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

async function scopes(s: SqlSession, ids: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await s.query(
    'SELECT key_id, company_id FROM api_key_companies WHERE key_id = ANY($1) ORDER BY key_id, company_id',
    [ids],
  );
  for (const r of rows) out.get(int(r.key_id))?.push(int(r.company_id));
  return out;
}

export async function listCompanies(s: SqlSession): Promise<Company[]> {
  const rows = await s.query(
    'SELECT id, name, base_currency, fiscal_year_start_month, time_zone FROM companies ORDER BY id',
  );
  return rows.map((r) => ({
    id: int(r.id),
    name: str(r.name),
    baseCurrency: str(r.base_currency),
    fiscalYearStartMonth: int(r.fiscal_year_start_month),
    timeZone: str(r.time_zone),
  }));
}

/** Inserts the key; run inside a transaction that serializes key creation (the id is MAX + 1). */
export async function insertApiKey(s: SqlSession, key: NewApiKey, now = new Date()): Promise<ApiKeyRecord> {
  if (!/^[0-9a-f]{64}$/.test(key.keyHash)) throw new TypeError('keyHash must be 64 lowercase hex digits (SHA-256)');
  const companyIds = [...new Set(key.companyIds)].sort((a, b) => a - b);
  if (!companyIds.length || !companyIds.every((id) => Number.isInteger(id)))
    throw new TypeError('an API key needs at least one company id');
  const [next] = await s.query('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM api_keys');
  const id = int(next!.id);
  await s.query(
    'INSERT INTO api_keys (id, name, key_hash, created_at, revoked_at) ' +
      'VALUES ($1, $2, $3, CAST($4 AS TIMESTAMP), NULL)',
    [id, key.name, key.keyHash, utcText(now)],
  );
  for (const companyId of companyIds) {
    await s.query('INSERT INTO api_key_companies (key_id, company_id) VALUES ($1, $2)', [id, companyId]);
  }
  const [row] = await s.query('SELECT id, name, key_hash, created_at, revoked_at FROM api_keys WHERE id = $1', [id]);
  return toRecord(row!, companyIds);
}

/** Whether any key, revoked or not, exists. */
export async function hasApiKeys(s: SqlSession): Promise<boolean> {
  const [row] = await s.query('SELECT count(*) AS n FROM api_keys');
  return int(row!.n) > 0;
}

export async function findApiKeyByHash(s: SqlSession, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await s.query('SELECT id, name, key_hash, created_at, revoked_at FROM api_keys WHERE key_hash = $1', [
    keyHash,
  ]);
  if (!row) return undefined;
  const id = int(row.id);
  return toRecord(row, (await scopes(s, [id])).get(id) ?? []);
}

export async function listApiKeys(s: SqlSession): Promise<ApiKeyRecord[]> {
  const rows = await s.query('SELECT id, name, key_hash, created_at, revoked_at FROM api_keys ORDER BY id');
  const byId = await scopes(
    s,
    rows.map((r) => int(r.id)),
  );
  return rows.map((r) => toRecord(r, byId.get(int(r.id)) ?? []));
}

export async function revokeApiKey(s: SqlSession, id: number, now = new Date()): Promise<boolean> {
  const [row] = await s.query('SELECT revoked_at FROM api_keys WHERE id = $1', [id]);
  if (!row || row.revoked_at != null) return false;
  await s.query('UPDATE api_keys SET revoked_at = CAST($2 AS TIMESTAMP) WHERE id = $1', [id, utcText(now)]);
  return true;
}
