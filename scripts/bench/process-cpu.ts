/** CPU time of benchmarked processes, read from /proc (Linux; clock ticks of 10 ms, USER_HZ = 100). */
import { readFileSync } from 'node:fs';

/** CPU time (user + system, ms) a process has used so far. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The same for a process and its descendants; a process gone (or no /proc) counts 0. */
export function processTreeCpuMs(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    return processCpuMs(pid) + children.reduce((ms, child) => ms + processTreeCpuMs(Number(child)), 0);
  } catch {
    return 0;
  }
}
