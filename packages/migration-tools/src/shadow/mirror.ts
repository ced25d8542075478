/**
 * One mirrored exchange, compared as `npm run compare` compares a replayed one: the other host (new, or old when the
 * new one serves) and the noise host (`--old2`, else the old host again for GET and HEAD) get the client's request
 * through compare's replay (per-host headers, time-out), compare's comparers diff old against new and old against
 * old2, compare's rules allow what they allow, and what differs between the two old answers is noise (for this
 * request, and by its generalised path for its endpoint from then on, as compare and Twitter's Diffy do). The record
 * is redacted before it leaves.
 */
import { compareAnswers, type AnswerComparison } from '../compare/compare-exchange.ts';
import { generalPath } from '../compare/comparers/paths.ts';
import { builtInNoise } from '../compare/noise.ts';
import { answerSummary, clipBody, outcomeOf } from '../compare/outcome.ts';
import { rebaseCaptured, replay, type HostConfig } from '../compare/replay.ts';
import { RuleMatcher, type Rules } from '../compare/rules.ts';
import type { Captured, ExchangeRecord } from '../compare/types.ts';
import { boundedRecord } from '../compare/bounded-record.ts';
import { captureAnswer } from './capture.ts';
import { mirroredHeaders, type CredentialPair } from './credentials.ts';
import { headerRecord } from './hop-headers.ts';
import type { Served } from './options.ts';
import { redactRecord } from './redact.ts';

export interface MirrorConfig {
  old: HostConfig;
  old2?: HostConfig;
  new: HostConfig;
  serve: Served;
  rules: Rules;
  timeoutMs: number;
  concurrency: number;
  /** Credential values of the per-host headers: redacted from every record. */
  hostSecrets: string[];
  /** Largest body kept per side for the side-by-side view (characters). */
  maxBodyChars: number;
  /** Keep the two bodies of a differing exchange (`--show-bodies`); else only its differing fields. */
  showBodies: boolean;
  /** Old-host credentials and the new-service ones they stand for (`--credential-map`). */
  credentialMap: CredentialPair[];
  /** Nice value of the mirror's thread, which then runs at SCHED_IDLE too (Linux; 0: the proxy's own priority). */
  niceness: number;
}

export interface MirrorJob {
  id: number;
  method: string;
  url: string;
  endpoint: string;
  /** The client's end-to-end request headers, lower-cased names. */
  headers: Record<string, string>;
  /** The request body's bytes, as the client sent them. */
  body?: Uint8Array<ArrayBuffer>;
  /**
   * The served host's answer as it came: captured (decoded, rebased) here, on the mirror's thread. Absent for a mirror
   * sink (nginx's `mirror` sends the request, not the answer): the old host is then asked here too, as Diffy's primary.
   */
  served?: ServedAnswer;
  /** Bases the answers may name besides each host's own (the proxy's address as the client called it). */
  bases: string[];
  /** The request's own credentials, redacted from the record. */
  secrets: string[];
}

/**
 * The answer the client got: status, end-to-end raw headers, the body's bytes (as sent, maybe compressed), its time.
 */
export interface ServedAnswer {
  status: number;
  rawHeaders: string[];
  bytes: Uint8Array<ArrayBuffer>;
  ms: number;
}

/** `errors`: a host's answer was a transport failure or a time-out, so nothing was compared. */
export type MirrorOutcome = 'identical' | 'different' | 'noiseOnly' | 'allowedOnly' | 'errors';

export interface MirrorResult {
  id: number;
  outcome: MirrorOutcome;
  /** The mirrored host (new, or old when the new one serves) failed or timed out: what the circuit breaker counts. */
  mirroredFailed: boolean;
  record: ExchangeRecord;
}

const REPEATABLE = new Set(['GET', 'HEAD']);
/** Endpoints whose learned noise is kept; beyond it a new endpoint learns only from its own requests. */
const MAX_NOISE_ENDPOINTS = 1_000;

export class Mirror {
  /** Generalised paths that differed between the two old answers, by endpoint. */
  private readonly endpointNoise = new Map<string, Set<string>>();

  constructor(private readonly config: MirrorConfig) {}

  async run(job: MirrorJob): Promise<MirrorResult> {
    const { config } = this;
    // The caller's own credentials, or their mapped counterparts; old-host ones for the noise host.
    const request = (headers: Record<string, string>) => ({
      method: job.method,
      url: job.url,
      headers,
      body: job.body,
      origin: { source: 'shadow' },
    });
    const toOld = request(mirroredHeaders(job.headers, config.credentialMap, 'old'));
    const toNew = request(mirroredHeaders(job.headers, config.credentialMap, 'new'));
    const [servedHost, other] = config.serve === 'old' ? [config.old, config.new] : [config.new, config.old];
    // A sink asks the old host itself (for a verb that must not be sent twice, the second old instance instead).
    const repeatable = REPEATABLE.has(job.method);
    const primary = job.served ? undefined : repeatable ? config.old : config.old2;
    if (!job.served && !primary) throw new Error(`a mirror sink needs --old2 to compare ${job.method}`);
    const [mirrored, asked] = await Promise.all([
      replay(config.serve === 'old' ? toNew : toOld, other, config.timeoutMs),
      primary && replay(toOld, primary, config.timeoutMs),
    ]);
    const served = asked ? rebaseCaptured(asked, job.bases) : this.capture(job.served!, servedHost, job.bases);
    // The noise host: the second old instance, else the old host again for a verb that may be sent twice; none when
    // the second old instance already answered for the old host.
    const noiseHost = primary && !repeatable ? undefined : (config.old2 ?? (repeatable ? config.old : undefined));
    const shadow = rebaseCaptured(mirrored, job.bases);
    const old = config.serve === 'old' ? served : shadow;
    const neu = config.serve === 'old' ? shadow : served;
    // The second old answer only tells noise from differences: asked only when the two answers differ, so a
    // migration that converges puts less and less extra load on the old host (it answered the client already).
    const main = compareAnswers(old, neu, config.rules.headers, job.method);
    const noise =
      main.diffs.length > 0 && !old.error && !neu.error && noiseHost
        ? await replay(toOld, noiseHost, config.timeoutMs)
        : undefined;
    const old2 = noise ? rebaseCaptured(noise, job.bases) : undefined;
    const { record, outcome } = this.classify(job, old, neu, old2, main);
    return {
      id: job.id,
      outcome,
      mirroredFailed: !!mirrored.error,
      record: redactRecord(boundedRecord(record), [...job.secrets, ...config.hostSecrets]),
    };
  }

  private capture({ status, rawHeaders, bytes, ms }: ServedAnswer, host: HostConfig, bases: string[]): Captured {
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return captureAnswer(status, headerRecord(rawHeaders), body, [host.base, ...bases], ms);
  }

  private classify(
    job: MirrorJob,
    old: Captured,
    neu: Captured,
    old2: Captured | undefined,
    main: AnswerComparison,
  ): { record: ExchangeRecord; outcome: MirrorOutcome } {
    const { rules } = this.config;
    const record: ExchangeRecord = {
      id: job.id,
      request: { method: job.method, url: job.url, origin: { source: 'shadow' } },
      endpoint: job.endpoint,
      outcome: 'identical',
      old: answerSummary(old),
      ...(old2 ? { old2: answerSummary(old2) } : {}),
      new: answerSummary(neu),
      differences: [],
      noise: [],
      allowed: [],
    };
    if (old.error || neu.error) {
      record.differences = main.diffs;
      record.outcome = 'different';
      return { record, outcome: 'errors' };
    }
    const noisy = new Set(
      old2 && !old2.error ? compareAnswers(old, old2, rules.headers, job.method).diffs.map((d) => d.path) : [],
    );
    const learned = this.learnedNoise(job.endpoint);
    for (const path of noisy) learned?.add(generalPath(path));
    const matcher = new RuleMatcher(rules, job.endpoint, [main.old?.tree, main.new?.tree]);
    for (const diff of main.diffs) {
      // This service's own volatile fields (link signature, BuildTime, X-Request-Id), as compare treats them.
      const why = builtInNoise(diff);
      if (why) {
        record.noise.push({ ...diff, why: `built-in: ${why}` });
        continue;
      }
      const rule = matcher.allow(diff);
      if (rule) record.allowed.push({ ...diff, rule });
      else if (noisy.has(diff.path) || learned?.has(generalPath(diff.path))) record.noise.push(diff);
      else record.differences.push(diff);
    }
    record.comparer = main.comparer;
    record.outcome = outcomeOf(record);
    if (record.differences.length && this.config.showBodies) {
      const max = this.config.maxBodyChars;
      record.bodies = {
        old: clipBody(main.old?.pretty ?? old.body, max),
        new: clipBody(main.new?.pretty ?? neu.body, max),
      };
    }
    const outcome = (
      {
        identical: 'identical',
        different: 'different',
        'noise-only': 'noiseOnly',
        'allowed-only': 'allowedOnly',
        skipped: 'errors',
      } as const
    )[record.outcome];
    return { record, outcome };
  }

  private learnedNoise(endpoint: string): Set<string> | undefined {
    let set = this.endpointNoise.get(endpoint);
    if (!set && this.endpointNoise.size < MAX_NOISE_ENDPOINTS) this.endpointNoise.set(endpoint, (set = new Set()));
    return set;
  }
}
