/**
 * The mirror's circuit breaker, cockatiel's: after `threshold` mirrored requests in a row found the mirrored host down
 * (a transport failure or a time-out), it opens and no mirror is sent (each is dropped and counted with the reason)
 * until `delayMs` have passed; then one request goes through as a probe (half-open): its success closes the circuit,
 * its failure opens it for another `delayMs`. A stopped new service thus costs one failed request per delay, not one
 * per client. A mirror's outcome arrives later from the mirror's thread: settle(id) ends the call the breaker counts.
 */
import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  handleAll,
  type CircuitBreakerPolicy,
} from 'cockatiel';

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

class MirroredHostDown extends Error {}

export class MirrorBreaker {
  private readonly consecutive: ConsecutiveBreaker;
  private readonly policy: CircuitBreakerPolicy;
  private readonly waiting = new Map<number, (failed: boolean) => void>();
  private openedAt = 0;
  private opened = 0;

  constructor(
    private readonly threshold: number,
    private readonly delayMs: number,
  ) {
    this.consecutive = new ConsecutiveBreaker(threshold);
    this.policy = circuitBreaker(handleAll, { halfOpenAfter: delayMs, breaker: this.consecutive });
    this.policy.onBreak(() => {
      this.openedAt = Date.now();
      this.opened++;
    });
  }

  /** Open within its delay, or half-open with the probe in flight: a mirror would be dropped now. */
  get refusing(): boolean {
    const state = this.policy.state;
    // cockatiel queues the calls that come while a probe is in flight; a mirror is dropped instead.
    return (
      state === CircuitState.HalfOpen || (state === CircuitState.Open && Date.now() - this.openedAt < this.delayMs)
    );
  }

  /** Sends mirror `id` through the breaker (`send` runs unless the circuit refuses it); true when it was sent. */
  async send(id: number, send: () => void): Promise<boolean> {
    if (this.refusing) return false;
    try {
      await this.policy.execute(
        () =>
          new Promise<void>((resolve, reject) => {
            this.waiting.set(id, (failed) => (failed ? reject(new MirroredHostDown()) : resolve()));
            send();
          }),
      );
    } catch (error) {
      if (error instanceof BrokenCircuitError) return false;
    }
    return true;
  }

  /** Mirror `id` is done: `failed` when the mirrored host was down or timed out. */
  settle(id: number, failed: boolean): void {
    const done = this.waiting.get(id);
    this.waiting.delete(id);
    done?.(failed);
  }

  snapshot(): BreakerSnapshot {
    const state = this.policy.state;
    const shown: BreakerState =
      state === CircuitState.Closed ? 'closed' : this.refusing && state === CircuitState.Open ? 'open' : 'half-open';
    return {
      state: shown,
      failuresInARow: this.consecutive.state,
      threshold: this.threshold,
      delayMs: this.delayMs,
      opened: this.opened,
    };
  }
}
