/**
 * The bytes the proxy's copies of requests and answers may hold at once (`--memory-limit`): taken chunk by chunk as
 * an exchange to mirror streams through, kept while its job waits and runs on the mirror's thread, given back with its
 * result. A copy that would pass the budget is dropped (the exchange is served, counted as dropped), so memory is
 * bounded in bytes, not only in jobs.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `n` bytes; false (nothing taken) when they would pass the limit. */
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  get held(): number {
    return this.used;
  }
}
