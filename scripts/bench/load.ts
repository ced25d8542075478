/** One autocannon load run as the benchmarks run it: a warm-up (JIT, sockets, pools), then the measured run. */
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
