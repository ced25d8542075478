/**
 * API keys: 256-bit random secrets, shown once, stored only as their SHA-256 (a fast hash is enough for
 * random keys: there is nothing to brute-force). Sent as `X-ApiKey: <key>` or `Authorization: Bearer <key>`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyRecord, LedgerStore } from '../store/ledger-store.ts';

export const API_KEY_HEADER = 'x-apikey';
const KEY_PREFIX = 'rsk_';
/** Longest key text looked up; anything longer is refused without a query. */
const MAX_KEY_CHARS = 256;

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The key the request presents: undefined when it sends none, '' when it sends something unusable
 * (an empty or oversized key, or a Bearer header without a token).
 */
export function presentedApiKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[API_KEY_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined) return usable(fromHeader.trim());
  const authorization = headers.authorization;
  if (authorization === undefined) return undefined;
  const bearer = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
  if (!bearer) return undefined; // another scheme (Basic, ...) is not an API key
  return usable((bearer[1] ?? '').trim());
}

function usable(key: string): string {
  return key.length > 0 && key.length <= MAX_KEY_CHARS ? key : '';
}

/** Makes a key for the given companies and stores its hash; returns the plaintext key (show it once) and the record. */
export async function createApiKey(store: LedgerStore, options: { name: string; companyIds: number[] }): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = await store.createApiKey({ name: options.name, companyIds: options.companyIds, keyHash: hashApiKey(key) });
  return { key, record };
}
