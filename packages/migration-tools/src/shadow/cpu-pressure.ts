/**
 * Whether the machine's CPU is contended: Linux's pressure stall information (/proc/pressure/cpu, its `some` line), the
 * share of the latest interval in which a runnable task waited for a CPU. The hosts a mirror asks answer at their own
 * priority, not the mirror thread's, so a mirror started while the CPU is contended takes it from clients; at or over
 * the limit mirrors are dropped before they ask anything. Without PSI (another OS, a kernel without it): never busy.
 */
import { readFileSync } from 'node:fs';

const PSI_CPU = '/proc/pressure/cpu';
/** The cumulative stall time in microseconds (`some ... total=N`). */
const SOME_TOTAL = /^some .*\btotal=(\d+)/m;

function stalledMicroseconds(): number | undefined {
  try {
    const match = SOME_TOTAL.exec(readFileSync(PSI_CPU, 'latin1'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export class CpuPressure {
  /** Share of the latest interval (0 to 1) in which some task waited for a CPU. */
  private latest = 0;
  private readonly timer?: NodeJS.Timeout;

  /** `limit`: the share (0 to 1) at or over which the CPU is busy; 1 or more: never. */
  constructor(
    private readonly limit: number,
    intervalMs = 500,
  ) {
    let last = stalledMicroseconds();
    if (last === undefined || limit >= 1) return;
    let at = performance.now();
    this.timer = setInterval(() => {
      const [stalled, now] = [stalledMicroseconds(), performance.now()];
      if (stalled === undefined) return;
      this.latest = Math.min(1, (stalled - last!) / 1000 / Math.max(1, now - at));
      [last, at] = [stalled, now];
    }, intervalMs);
    this.timer.unref();
  }

  get busy(): boolean {
    return this.latest >= this.limit;
  }

  /** The latest share, for the page. */
  get share(): number {
    return this.latest;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
