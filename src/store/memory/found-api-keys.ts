/**
 * The API keys a store has found, by hash, so a request does not look its key up again. Unknown hashes are never
 * kept; `forget()` drops everything (a key was created or revoked) and a lookup that was running meanwhile is not kept.
 */
import type { ApiKeyRecord } from '../ledger/api-keys.ts';
import { deepFreeze } from './deep-freeze.ts';

export class FoundApiKeys {
  private readonly found = new Map<string, Promise<ApiKeyRecord | undefined>>();
  private changes = 0;

  /** The kept lookup of this hash, or `lookup()`'s, kept unless it finds nothing or a change overtakes it. */
  find(keyHash: string, lookup: () => Promise<ApiKeyRecord | undefined>): Promise<ApiKeyRecord | undefined> {
    const cached = this.found.get(keyHash);
    if (cached) return cached;
    const changesAtStart = this.changes;
    const finding = lookup().then((record) => record && deepFreeze(record));
    this.found.set(keyHash, finding);
    const forget = () => {
      if (this.found.get(keyHash) === finding) this.found.delete(keyHash);
    };
    finding.then((record) => {
      if (!record || this.changes !== changesAtStart) forget();
    }, forget);
    return finding;
  }

  forget(): void {
    this.changes++;
    this.found.clear();
  }
}
