/** Shared SQL for the `settings` table (both dialects): get-or-create of a value, first writer wins. */
import { randomBytes } from 'node:crypto';
import { str, type SqlSession } from './session.ts';

export const LINK_SECRET_KEY = 'report_link_secret';

export function newLinkSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Inserts `candidate` unless the key exists, then returns the stored value (the winner's on a race). */
export async function getOrCreateSetting(s: SqlSession, key: string, candidate: string): Promise<string> {
  await s.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, candidate]);
  const rows = await s.query('SELECT value FROM settings WHERE key = $1', [key]);
  if (!rows[0]) throw new Error(`settings: ${key} missing after insert`);
  return str(rows[0].value);
}
