/**
 * The replay: each request goes to the old host, to the old host again (or `--old2`) and to the new host, under a
 * concurrency limit (p-limit) and a per-host rate limit (p-throttle). Differences old↔new are then sorted as Twitter's
 * Diffy does: a field that also differs between the two old answers is noise (for that request, and — by its path with
 * indices generalised — for its whole endpoint); a difference an explicit rule allows is counted under the rule; the
 * rest are differences a client would see.
 */
import pLimit from 'p-limit';
import pThrottle from 'p-throttle';
import { compareAnswers } from './compare-exchange.ts';
import { boundedRecord } from './bounded-record.ts';
import { generalPath } from './comparers/paths.ts';
import { BUILT_IN_NOISE, builtInNoise, type VolatileField } from './noise.ts';
import { endpointOf } from './endpoint.ts';
import { answerSummary, clipBody, outcomeOf } from './outcome.ts';
import { replay, type HostConfig } from './replay.ts';
import { RuleMatcher, type Rules } from './rules.ts';
import { summarise, type Summary } from './summary.ts';
import type { ExchangeRecord, FieldDiff, ReplayRequest, SourceIssue } from './types.ts';

export interface CompareOptions {
  old: HostConfig;
  /** A second old instance; default: the old host a second time. */
  old2?: HostConfig;
  new: HostConfig;
  rules: Rules;
  concurrency: number;
  /** Requests per second to each host (undefined: no limit). */
  rps?: number;
  timeoutMs: number;
  /**
   * Replay every verb a recording holds (POST, PUT, DELETE, PATCH, OPTIONS, ...), not only GET and HEAD: the old host
   * is production, so it takes an explicit `--allow-non-get`.
   */
  allowNonGet: boolean;
  /** Largest body kept per side for the side-by-side view (characters). */
  maxBodyChars?: number;
  onProgress?: (done: number, total: number) => void;
  /** This service's volatile fields, noise without a second old answer (default BUILT_IN_NOISE; [] for none). */
  volatileFields?: readonly VolatileField[];
}

export interface CompareReport {
  startedAt: string;
  finishedAt: string;
  hosts: { old: string; old2: string; new: string };
  headers: string[];
  rules: string[];
  sources: { spec: string; source: string; requests: number; issues: number }[];
  issues: SourceIssue[];
  summary: Summary;
  exchanges: ExchangeRecord[];
}

/** Replayed without being asked: the safe verbs a client reads with. Every other verb needs `allowNonGet`. */
const REPLAYED = new Set(['GET', 'HEAD']);
export const NON_GET_SKIPPED = (method: string) =>
  `${method} is replayed only with --allow-non-get (the old host is production)`;

interface Pending {
  record: ExchangeRecord;
  raw: FieldDiff[];
  noisy: Set<string>;
}

const OLD_ANSWERS_DIFFER = 'differs between the two old answers';

export async function runComparison(
  requests: ReplayRequest[],
  options: CompareOptions,
  sourceInfo: Pick<CompareReport, 'sources' | 'issues'>,
): Promise<CompareReport> {
  const startedAt = new Date().toISOString();
  const old2 = options.old2 ?? options.old;
  const limit = pLimit(Math.max(1, options.concurrency));
  const throttles = new Map<string, <T>(fn: () => Promise<T>) => Promise<T>>();
  const throttled = (host: HostConfig) => {
    const origin = new URL(host.base).origin;
    let run = throttles.get(origin);
    if (!run) {
      const throttle = options.rps
        ? pThrottle({ limit: Math.max(1, Math.round(options.rps)), interval: 1000 })
        : undefined;
      run = throttle ? <T>(fn: () => Promise<T>) => throttle(fn)() : <T>(fn: () => Promise<T>) => fn();
      throttles.set(origin, run);
    }
    return run;
  };
  const send = (request: ReplayRequest, host: HostConfig) =>
    throttled(host)(() => replay(request, host, options.timeoutMs));
  const maxBody = options.maxBodyChars ?? 200_000;
  const volatile = options.volatileFields ?? BUILT_IN_NOISE;
  let done = 0;

  const pending = await Promise.all(
    requests.map((request, id) =>
      limit(async (): Promise<Pending> => {
        const endpoint = endpointOf(request.method, request.url);
        const record: ExchangeRecord = {
          id,
          request: { method: request.method, url: request.url, origin: request.origin },
          endpoint,
          outcome: 'skipped',
          differences: [],
          noise: [],
          allowed: [],
        };
        try {
          if (!REPLAYED.has(request.method) && !options.allowNonGet) {
            record.skipped = NON_GET_SKIPPED(request.method);
            return { record, raw: [], noisy: new Set() };
          }
          const [a, a2, b] = await Promise.all([
            send(request, options.old),
            send(request, old2),
            send(request, options.new),
          ]);
          record.old = answerSummary(a);
          record.old2 = answerSummary(a2);
          record.new = answerSummary(b);
          const noise = compareAnswers(a, a2, options.rules.headers, request.method);
          const main = compareAnswers(a, b, options.rules.headers, request.method);
          record.comparer = main.comparer;
          const matcher = new RuleMatcher(options.rules, endpoint, [main.old?.tree, main.new?.tree]);
          const raw: FieldDiff[] = [];
          for (const diff of main.diffs) {
            const why = builtInNoise(diff, volatile);
            if (why) {
              record.noise.push({ ...diff, why: `built-in: ${why}` });
              continue;
            }
            const rule = matcher.allow(diff);
            if (rule) record.allowed.push({ ...diff, rule });
            else raw.push(diff);
          }
          if (raw.length)
            record.bodies = {
              old: clipBody(main.old?.pretty ?? a.body, maxBody),
              new: clipBody(main.new?.pretty ?? b.body, maxBody),
            };
          return { record, raw, noisy: new Set(noise.diffs.map((d) => d.path)) };
        } finally {
          options.onProgress?.(++done, requests.length);
        }
      }),
    ),
  );

  // Noise by endpoint: a generalised path that differed between the two old answers of any request of the endpoint.
  const endpointNoise = new Map<string, Set<string>>();
  for (const { record, noisy } of pending) {
    const set = endpointNoise.get(record.endpoint) ?? new Set<string>();
    for (const path of noisy) set.add(generalPath(path));
    endpointNoise.set(record.endpoint, set);
  }
  for (const { record, raw, noisy } of pending) {
    if (record.skipped) continue;
    const endpointSet = endpointNoise.get(record.endpoint)!;
    for (const diff of raw) {
      if (noisy.has(diff.path) || endpointSet.has(generalPath(diff.path)))
        record.noise.push({ ...diff, why: OLD_ANSWERS_DIFFER });
      else record.differences.push(diff);
    }
    if (!record.differences.length) delete record.bodies;
    record.outcome = outcomeOf(record);
  }
  const records = pending.map((p) => p.record);
  // The summary counts every field; each exchange is then kept bounded (bounded-record.ts).
  const summary = summarise(records);
  const exchanges = records.map(boundedRecord);
  return {
    startedAt,
    finishedAt: new Date().toISOString(),
    hosts: { old: options.old.base, old2: old2.base, new: options.new.base },
    headers: options.rules.headers,
    rules: [...options.rules.ignore, ...options.rules.tolerances].map((r) => JSON.stringify(r)),
    ...sourceInfo,
    summary,
    exchanges,
  };
}
