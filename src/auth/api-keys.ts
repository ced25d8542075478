/**
 * API keys: 256-bit random secrets, shown once, stored only as their SHA-256 (a fast hash is enough for
 * random keys: there is nothing to brute-force). Sent the ways ServiceStack's ApiKeyAuthProvider took them:
 * `X-ApiKey: <key>`, `Authorization: Bearer <key>`, HTTP Basic with the key as the user name (password ignored),
 * or, for a link opened in a browser (which cannot add headers), the `apikey` query parameter (AllowInHttpParams).
 * The parameter is redacted from logs.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyRecord } from '../store/ledger/api-keys.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';

export const API_KEY_HEADER = 'x-apikey';
export const API_KEY_QUERY = 'apikey';
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
export function presentedApiKey(headers: IncomingHttpHeaders, url = ''): string | undefined {
  const header = headers[API_KEY_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined) return usable(fromHeader.trim());
  const authorization = headers.authorization;
  const scheme = authorization === undefined ? undefined : /^(Bearer|Basic)(?:\s+(.*))?$/i.exec(authorization.trim());
  if (scheme) {
    const credentials = (scheme[2] ?? '').trim();
    return usable(scheme[1]!.toLowerCase() === 'basic' ? basicUserName(credentials) : credentials);
  }
  const fromQuery = queryApiKey(url);
  return fromQuery === undefined ? undefined : usable(fromQuery.trim());
}

/** The user name of HTTP Basic credentials (`base64(user:password)`); '' when they are not valid base64. */
function basicUserName(credentials: string): string {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials) || credentials.length > MAX_KEY_CHARS * 2) return '';
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return (colon === -1 ? decoded : decoded.slice(0, colon)).trim();
}

/** The `apikey` query parameter (name matched case-insensitively, like every legacy query name). */
function queryApiKey(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query === -1) return undefined;
  for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
    if (name.toLowerCase() === API_KEY_QUERY) return value;
  }
  return undefined;
}

/**
 * Query names whose values are secrets, read decoded and without separators (`api_key`, `API-Key`, `api%6Bey`):
 * keys, tokens and passwords, and ServiceStack's session and JWT names (`ss-tok`, `ss-id`, `ss-pid`, `jwt`, `sid`).
 */
const SECRET_NAME = /apikey|key|tok|secret|pass|pwd|auth|bearer|jwt|sid|sspid|session|cred|cookie|signature/;
/** Our keys' shape, wherever they appear (a value under any name, a path segment). */
export const KEY_LIKE = /rsk_[A-Za-z0-9_-]{8,}/;
/** What a redacted secret is written as, in the access log and wherever else a secret is kept out. */
export const REDACTED = '[redacted]';

function decodedLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // a malformed escape: judge the raw text
  }
}

/**
 * The URL for logs: redacts the value of every query parameter whose decoded name names a secret (the `apikey` that
 * authenticates, however encoded, and near-misses such as `api_key` or `token`), and anything shaped like one of our
 * keys, in the query or the path. Judged on decoded text, so percent-encoding cannot smuggle a key past it.
 */
export function redactApiKey(url: string): string {
  const q = url.indexOf('?');
  // Nothing encoded and no query: the path as it is, unless something in it is shaped like a key.
  if (q === -1 && !url.includes('%') && !KEY_LIKE.test(url)) return url;
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (KEY_LIKE.test(decodedLoosely(segment)) ? REDACTED : segment))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      const secretName = SECRET_NAME.test(
        decodedLoosely(name)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, ''),
      );
      if (secretName && eq !== -1) return `${name}=${REDACTED}`;
      if (KEY_LIKE.test(decodedLoosely(pair)))
        return eq === -1 ? REDACTED : `${KEY_LIKE.test(decodedLoosely(name)) ? REDACTED : name}=${REDACTED}`;
      return pair;
    })
    .join('&');
  return `${path}?${query}`;
}

function usable(key: string): string {
  return key.length > 0 && key.length <= MAX_KEY_CHARS ? key : '';
}

/** Makes a key for the given companies and stores its hash; returns the plaintext key (show it once) and the record. */
export async function createApiKey(
  store: Pick<LedgerStore, 'createApiKey'>,
  options: { name: string; companyIds: number[] },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = await store.createApiKey({
    name: options.name,
    companyIds: options.companyIds,
    keyHash: hashApiKey(key),
  });
  return { key, record };
}

/** A new key, made only when the store holds none (the demo key); undefined when one exists. */
export async function createFirstApiKey(
  store: Pick<LedgerStore, 'createFirstApiKey'>,
  options: { name: string; companyIds: number[] },
): Promise<string | undefined> {
  const key = generateApiKey();
  return (await store.createFirstApiKey({
    name: options.name,
    companyIds: options.companyIds,
    keyHash: hashApiKey(key),
  }))
    ? key
    : undefined;
}

export interface KeyRequest {
  name: string;
  companyIds: number[];
}

/** Longest key name an operator may give. */
const MAX_KEY_NAME_CHARS = 200;

/**
 * A new key made here (never a hash the caller chose) for companies the store has; the request is checked first, as
 * it may come from another process (the keys CLI through keys.sock): a name of at most 200 characters, one or more
 * company ids that are positive integers of existing companies.
 */
export async function issueApiKey(
  store: Pick<LedgerStore, 'createApiKey' | 'listCompanies'>,
  request: unknown,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const { name, companyIds } = (typeof request === 'object' && request !== null ? request : {}) as Partial<KeyRequest>;
  if (typeof name !== 'string' || name.length > MAX_KEY_NAME_CHARS)
    throw new Error(`a key name is text of at most ${MAX_KEY_NAME_CHARS} characters`);
  if (
    !Array.isArray(companyIds) ||
    companyIds.length === 0 ||
    !companyIds.every((id) => Number.isSafeInteger(id) && id > 0)
  ) {
    throw new Error('a key needs one or more company ids (positive integers)');
  }
  const known = new Set((await store.listCompanies()).map((c) => c.id));
  const unknown = companyIds.filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`no such company: ${unknown.join(', ')}`);
  return createApiKey(store, { name, companyIds: [...new Set(companyIds)] });
}

/**
 * An id as an operator types it (a key's, a company's): a positive decimal integer; `0x1`, `1e0`, `+1`, `1.0` are not.
 */
export function parseOperatorId(text: string | undefined): number | undefined {
  const trimmed = text?.trim() ?? '';
  if (!/^[1-9]\d{0,14}$/.test(trimmed)) return undefined;
  return Number(trimmed);
}
