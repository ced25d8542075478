/**
 * Where the production start keeps Node's module compile cache: a directory only this user can write. V8 trusts a
 * cache entry whose source length matches, so an entry planted by another local user would run as this service: the
 * shared `$TMPDIR/node-compile-cache` is never used, and a directory of this name someone else made means no cache.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `$TMPDIR/reporting-service-compile-cache-<uid>`, made 0700; undefined when it is not this user's private dir. */
export function privateCompileCacheDirectory(parent = tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const directory = join(parent, `reporting-service-compile-cache-${uid}`);
  try {
    mkdirSync(directory, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const stat = lstatSync(directory);
  return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? directory : undefined;
}
