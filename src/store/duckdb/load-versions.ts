/**
 * The embedded store's ledger versions (LedgerView.ledgerVersion): per company, the count of this opening's loads that
 * may have changed it (the companies each load records, load-sql.ts LoadChange), named with an epoch drawn at each
 * opening, so that loads counted by another run or process (an import straight into the file) are never taken for
 * these.
 */
import { randomUUID } from 'node:crypto';

export class LoadVersions {
  private readonly epoch = randomUUID();
  private readonly counts = new Map<number, number>();
  private readonly changing = new Set<number>();

  /** The companies the load running now may change (its ChangeRecorder's call, before its COMMIT). */
  loading(companyIds: readonly number[]): void {
    for (const id of companyIds) this.changing.add(id);
  }

  /** The load ended, committed or not: its companies' versions move on. */
  loaded(): void {
    for (const id of this.changing) this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    this.changing.clear();
  }

  of(companyId: number): string {
    return `duckdb:${this.epoch}:${this.counts.get(companyId) ?? 0}`;
  }
}
