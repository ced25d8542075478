/**
 * Secrets never reach what the proxy keeps (its page, its JSON, the report file): the request's credentials (the
 * X-ApiKey, Authorization and Cookie values, Basic's user name and password, secret query values as the access log
 * judges them), the per-host headers' credential values, and anything shaped like one of our keys are replaced by
 * `[redacted]` in every field of a stored exchange (URL, endpoint, bodies, differing values), in each form they can
 * take there (as sent, JSON-escaped, percent-encoded).
 */
import { KEY_LIKE, REDACTED, redactApiKey } from '../../../../src/tooling-exports.ts';
import type { ExchangeRecord } from '../compare/types.ts';

/** Request headers that carry a caller's credentials (lower-case). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'x-apikey',
  'authorization',
  'proxy-authorization',
  'cookie',
]);
/** Our keys' shape (src/auth/api-keys.ts), every occurrence. */
const KEY_SHAPED = new RegExp(KEY_LIKE.source, 'g');
/** Shorter values are not treated as secrets (replacing them would garble the record and hide nothing). */
const MIN_SECRET = 6;

function credentialValues(name: string, value: string): string[] {
  if (name === 'cookie') return value.split(';').map((pair) => pair.slice(pair.indexOf('=') + 1).trim());
  const scheme = /^(\w+)\s+(.+)$/.exec(value.trim());
  if (!scheme) return [value];
  const values = [value, scheme[2]!];
  if (scheme[1]!.toLowerCase() === 'basic')
    values.push(...Buffer.from(scheme[2]!, 'base64').toString('utf8').split(':'));
  return values;
}

/** The secrets of one request: credential header values and the query values the access log would redact. */
export function requestSecrets(headers: Record<string, string>, url: string): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers))
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) out.push(...credentialValues(name.toLowerCase(), value));
  const query = url.indexOf('?');
  if (query >= 0) {
    for (const pair of url.slice(query + 1).split('&')) {
      if (redactApiKey(`/?${pair}`) === `/?${pair}`) continue;
      const raw = pair.slice(pair.indexOf('=') + 1);
      out.push(raw, new URLSearchParams(pair).values().next().value ?? '');
    }
  }
  return out.filter((s) => s.trim().length >= MIN_SECRET);
}

function forms(secret: string): string[] {
  return [
    ...new Set([
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      JSON.stringify(encodeURIComponent(secret)).slice(1, -1),
    ]),
  ];
}

/** Replaces every secret (longest first, so none hides inside another) and every key-shaped string in the text. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...new Set(secrets)].sort((a, b) => b.length - a.length))
    for (const form of forms(secret)) out = out.split(form).join(REDACTED);
  return out.replace(KEY_SHAPED, REDACTED);
}

/** The exchange as it may be kept: the URL as the access log writes it, then every secret out of every field. */
export function redactRecord(record: ExchangeRecord, secrets: readonly string[]): ExchangeRecord {
  const withUrl: ExchangeRecord = { ...record, request: { ...record.request, url: redactApiKey(record.request.url) } };
  return JSON.parse(redactText(JSON.stringify(withUrl), secrets)) as ExchangeRecord;
}
