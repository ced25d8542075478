/**
 * Lowers the calling thread's CPU priority on Linux, that thread alone (a thread's nice value and scheduling policy are
 * its own there): SCHED_IDLE (chrt on the thread's id, from /proc/thread-self), so any thread of normal policy that
 * wakes takes the CPU from it at once, and the nice value. Elsewhere, or without chrt, it does what it can (README,
 * "Shadow traffic": the mirror takes what serving leaves).
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** What the thread runs at afterwards: `idle` (SCHED_IDLE and `niceness`), `nice` (no chrt) or `unchanged`. */
type LoweredTo = 'idle' | 'nice' | 'unchanged';

export function lowerThisThread(niceness: number): LoweredTo {
  if (process.platform !== 'linux' || niceness <= 0) return 'unchanged';
  // Nice of the calling thread (setpriority on the thread itself, pid 0).
  setPriority(niceness);
  // /proc/thread-self links to /proc/<pid>/task/<tid> (proc(5)); sched_setscheduler by tid changes that thread only.
  const tid = readlinkSync('/proc/thread-self').split('/').pop()!;
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 5_000 });
    return 'idle';
  } catch {
    return 'nice';
  }
}
