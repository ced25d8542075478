/**
 * The secret that signs report links: REPORT_LINK_SECRET when configured (every instance must then be given the
 * same value), else the store's own (LedgerStore.linkSecret(), created once and shared by every instance over
 * that store). Read once per process and kept; a failed read is retried on the next call.
 */
import type { LedgerStore } from '../store/ledger/ledger-store.ts';

export type LinkSecretSource = () => Promise<string>;

export function linkSecretSource(store: Pick<LedgerStore, 'linkSecret'>, configured?: string): LinkSecretSource {
  if (configured) return () => Promise.resolve(configured);
  let pending: Promise<string> | undefined;
  return () => {
    pending ??= store.linkSecret().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
