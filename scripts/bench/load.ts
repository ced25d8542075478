/**
 * Load as the benchmarks send it: one autocannon run (a warm-up for JIT, sockets and pools, then the measured run), or
 * one timed GET.
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  /** Seconds of unmeasured load first (0: none). */
  warmUpSeconds?: number;
  /** Called between the warm-up and the measured run (a CPU reading to start from). */
  beforeMeasured?: () => unknown;
  /** Each answer of the measured run: its status and milliseconds. */
  onResponse?: (status: number, ms: number) => void;
}

/** autocannon with `options` for `duration` seconds, after `warmUpSeconds` (1) of warm-up. */
export async function measuredLoad(
  options: Omit<autocannon.Options, 'duration'>,
  duration: number,
  { warmUpSeconds = 1, beforeMeasured, onResponse }: LoadOptions = {},
): Promise<autocannon.Result> {
  if (warmUpSeconds > 0) await autocannon({ ...options, duration: warmUpSeconds });
  await beforeMeasured?.();
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...options, duration }, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse)
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => onResponse(status, ms));
  });
}

/** The requests of a run that did not answer 2xx: errors, time-outs and other statuses. */
export const failedRequests = (result: autocannon.Result): number => result.errors + result.timeouts + result.non2xx;

/** One GET of `url` with `headers`, timed to its whole body; anything but a 200 stops the bench, naming it. */
export async function timedGet(url: string, headers: Record<string, string>): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${url}: ${text.slice(0, 300)}`);
  return { ms, text };
}
