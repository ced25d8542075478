/**
 * A quiet machine on a shared one, for latency tables (Linux, root): every thread of this process and of the
 * processes it started runs at SCHED_RR 2 while `run` runs, a SCHED_IDLE thread at SCHED_RR 1 (still below all the
 * others), so the machine's other load (fair-class processes) no longer sets the tail latency, and what the bench
 * started keeps its order of priorities. The kernel's real-time throttling (sched_rt_runtime_us) keeps 5% for others.
 * Afterwards each thread gets its policy back (SCHED_OTHER keeps its nice value).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const SCHED_IDLE = 5;

/** Why the emulation cannot run here, or undefined. */
export function realtimeUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root (SCHED_RR needs CAP_SYS_NICE)';
  const throttle = readFileSync('/proc/sys/kernel/sched_rt_runtime_us', 'utf8').trim();
  if (throttle === '-1') return 'real-time throttling is off (sched_rt_runtime_us = -1)';
  return undefined;
}

/** Every thread of a process and of its descendants, with its scheduling policy (stat's 41st field). */
function threadsOf(pid: number): { tid: number; policy: number }[] {
  try {
    const own = readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        return [{ tid: Number(tid), policy: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]) }];
      } catch {
        return []; // the thread ended meanwhile
      }
    });
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    return [...own, ...children.flatMap((child) => threadsOf(Number(child)))];
  } catch {
    return [];
  }
}

function chrt(args: string[]): void {
  try {
    execFileSync('chrt', args, { stdio: 'ignore' });
  } catch {
    // the thread ended meanwhile
  }
}

export async function quietMachine<T>(run: () => Promise<T>): Promise<T> {
  const threads = threadsOf(process.pid);
  for (const { tid, policy } of threads) chrt(['--rr', '--pid', policy === SCHED_IDLE ? '1' : '2', String(tid)]);
  try {
    return await run();
  } finally {
    for (const { tid, policy } of threads)
      chrt(policy === SCHED_IDLE ? ['--idle', '--pid', '0', String(tid)] : ['--other', '--pid', '0', String(tid)]);
  }
}
