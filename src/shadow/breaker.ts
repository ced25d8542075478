/**
 * The mirror's circuit breaker: after `threshold` mirrored requests in a row found the mirrored host down (a transport
 * failure or a time-out), it opens and no mirror is sent (each is dropped and counted with the reason) until `delayMs`
 * have passed; then one request goes through as a probe (half-open): its success closes the circuit, its failure
 * opens it for another `delayMs`. A stopped new service thus costs one failed request per delay, not one per client.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSnapshot {
  state: BreakerState;
  /** Failures in a row so far. */
  failuresInARow: number;
  threshold: number;
  delayMs: number;
  /** How many times it has opened. */
  opened: number;
}

export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private probing = false;
  private opened = 0;

  constructor(private readonly threshold: number, private readonly delayMs: number, private readonly now: () => number = Date.now) {}

  get state(): BreakerState {
    if (this.failures < this.threshold) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  /** Whether a mirror would be refused now (no side effect: the probe is granted by allow()). */
  get refusing(): boolean {
    return this.failures >= this.threshold && (this.probing || this.now() < this.openUntil);
  }

  /** Whether this mirror may be sent; when half-open, the first one asking is the probe, the others are refused until it answers. */
  allow(): boolean {
    if (this.refusing) return false;
    if (this.failures >= this.threshold) this.probing = true;
    return true;
  }

  succeeded(): void {
    this.failures = 0;
    this.probing = false;
  }

  failed(): void {
    this.failures++;
    this.probing = false;
    if (this.failures === this.threshold || (this.failures > this.threshold && this.now() >= this.openUntil)) {
      this.openUntil = this.now() + this.delayMs;
      this.opened++;
    }
  }

  snapshot(): BreakerSnapshot {
    return { state: this.state, failuresInARow: this.failures, threshold: this.threshold, delayMs: this.delayMs, opened: this.opened };
  }
}
