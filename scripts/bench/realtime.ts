/**
 * The bench ahead of a shared machine's other load (Linux, root), its own order of priorities kept. For latency
 * tables, a quiet machine: every thread of this process and of those it started at SCHED_RR 2, a SCHED_IDLE thread at
 * 1 (the kernel's real-time throttling keeps 5% for others). For saturated tables, where that would starve the others:
 * each such thread but the SCHED_IDLE ones 10 nice steps up (a larger share, not all). Afterwards all is as before.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const SCHED_IDLE = 5;

/** Why the emulation cannot run here, or undefined. */
export function realtimeUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root (SCHED_RR needs CAP_SYS_NICE)';
  const throttle = readFileSync('/proc/sys/kernel/sched_rt_runtime_us', 'utf8').trim();
  if (throttle === '-1') return 'real-time throttling is off (sched_rt_runtime_us = -1)';
  return undefined;
}

/** Every thread of a process and of its descendants, with its nice value and scheduling policy (stat's 19th, 41st). */
function threadsOf(pid: number): { tid: number; nice: number; policy: number }[] {
  try {
    const own = readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ tid: Number(tid), nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) }];
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

/** Sets a thread's nice value (setpriority on a thread id changes that thread alone, on Linux). */
function renice(tid: number, nice: number): void {
  try {
    setPriority(tid, Math.max(-20, Math.min(19, nice)));
  } catch {
    // the thread ended meanwhile
  }
}

export async function favoured<T>(run: () => Promise<T>): Promise<T> {
  const threads = threadsOf(process.pid).filter((t) => t.policy !== SCHED_IDLE);
  for (const { tid, nice } of threads) renice(tid, nice - 10);
  try {
    return await run();
  } finally {
    for (const { tid, nice } of threads) renice(tid, nice);
  }
}
