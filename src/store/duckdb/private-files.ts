/**
 * The embedded store's folder and files are the service user's alone: DATA_DIR holds every entry, the API keys'
 * hashes and the report-link secret. The folder is made (or made again) 0700 and the ledger file 0600 when opened,
 * so a store made by an earlier version (0755, 0644: any local user could copy it) is closed to others too.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/** Removes the group's and others' permissions of `path`, when it is there and this user's. */
function closeToOthers(path: string): void {
  let mode: number;
  let uid: number;
  try {
    ({ mode, uid } = statSync(path));
  } catch {
    return;
  }
  if ((mode & 0o077) !== 0 && uid === process.getuid?.()) chmodSync(path, mode & 0o700);
}

/**
 * DATA_DIR, made when missing, 0700; a shared directory (sticky, as /tmp) is left as it is, and the files made in it
 * from then on are closed (the process's umask takes 077): DuckDB makes its write-ahead log again after each
 * checkpoint, and its spill files, with no mode of ours.
 */
export function privateDataDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if ((statSync(directory).mode & 0o1000) === 0) closeToOthers(directory);
  else process.umask(process.umask(0o077) | 0o077);
}

/** The ledger file and its write-ahead log, 0600 (each when there). */
export function privateLedgerFiles(ledgerPath: string): void {
  for (const path of [ledgerPath, `${ledgerPath}.wal`]) closeToOthers(path);
}
