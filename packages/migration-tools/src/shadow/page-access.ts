/**
 * Who may read the shadow page and its JSON: they hold other callers' exchanges, so they are never on the port
 * clients use. They listen on their own port (loopback by default, `--page-host` to change it) and every request
 * must carry the page's token (`?token=…` or `Authorization: Bearer …`), printed at start or set with `--page-token`;
 * anything else is a 401 that shows nothing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A token of 32 hex characters, or the one given (at least 16 characters). */
export function pageToken(given: string | undefined): string {
  if (given === undefined) return randomBytes(16).toString('hex');
  if (given.length < 16) throw new Error(`--page-token must be at least 16 characters, got ${given.length}`);
  return given;
}

function same(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the request carries the page's token. */
export function pageAuthorized(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (bearer && same(bearer[1]!, token)) return true;
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  return query.getAll('token').some((t) => same(t, token));
}
