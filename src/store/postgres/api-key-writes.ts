/**
 * API key writes over PostgreSQL, inside the caller's transaction: each creation and revocation is announced on the
 * API keys channel, which every instance hears at its COMMIT and forgets the keys it found.
 */
import type pg from 'pg';
import type { ApiKeyRecord, NewApiKey } from '../ledger/api-keys.ts';
import * as keys from '../sql/api-key-sql.ts';
import { API_KEYS_CHANNEL } from './change-log-sql.ts';
import { session } from './session.ts';

/** Stores the key (only when the store holds none, with `onlyIfNone`); undefined when it did not. */
export async function insertApiKey(
  client: pg.PoolClient,
  key: NewApiKey,
  onlyIfNone: boolean,
): Promise<ApiKeyRecord | undefined> {
  // Serializes id allocation, and the check of createFirstApiKey with the insert.
  await client.query('LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE');
  if (onlyIfNone && (await keys.hasApiKeys(session(client)))) return undefined;
  const record = await keys.insertApiKey(session(client), key);
  await client.query('SELECT pg_notify($1, $2)', [API_KEYS_CHANNEL, String(record.id)]);
  return record;
}

/** Marks the key revoked; false when there is no such key or it was already revoked. */
export async function revokeApiKey(client: pg.PoolClient, id: number): Promise<boolean> {
  const revoked = await keys.revokeApiKey(session(client), id);
  if (revoked) await client.query('SELECT pg_notify($1, $2)', [API_KEYS_CHANNEL, String(id)]);
  return revoked;
}
