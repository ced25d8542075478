/**
 * Whether the machine's CPUs are busy: the share of the latest interval they were not idle, summed over all of them
 * (os.cpus() times). The hosts a mirror asks answer at their own priority, not the mirror thread's, so a mirror started
 * while serving keeps the CPUs (nearly) busy takes that CPU from the clients: at or over the limit mirrors are dropped
 * before they ask anything.
 */
import { cpus } from 'node:os';

/** Idle and total CPU time so far (ms), over all CPUs. */
function cpuTimes(): { idle: number; total: number } {
  let [idle, total] = [0, 0];
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

export class CpuBusy {
  /** Share of the latest interval (0 to 1) the CPUs were not idle. */
  private latest = 0;
  private readonly timer?: NodeJS.Timeout;

  /** `limit`: the busy share (0 to 1) at or over which mirrors wait out; 1 or more: never. */
  constructor(
    private readonly limit: number,
    intervalMs = 500,
  ) {
    if (limit >= 1) return;
    let last = cpuTimes();
    this.timer = setInterval(() => {
      const now = cpuTimes();
      const total = now.total - last.total;
      if (total > 0) this.latest = 1 - (now.idle - last.idle) / total;
      last = now;
    }, intervalMs);
    this.timer.unref();
  }

  get busy(): boolean {
    return this.latest >= this.limit;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
