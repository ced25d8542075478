/** What `npm run shadow` is configured with (scripts/shadow.ts parses the command line into this). */
import type { HostConfig } from '../compare/replay.ts';
import type { Rules } from '../compare/rules.ts';
import type { CredentialPair } from './credentials.ts';

/** Which host answers the clients: `old` (before the switch) or `new` (after it, the old one in the shadow). */
export type Served = 'old' | 'new';

export interface ShadowOptions {
  old: HostConfig;
  /**
   * A second old instance for noise; absent: the old host a second time, for GET and HEAD only (never a POST twice).
   */
  old2?: HostConfig;
  new: HostConfig;
  serve: Served;
  rules: Rules;
  /** Mirror POST too (default: GET and HEAD only). */
  allowPost: boolean;
  /**
   * A mirror sink behind nginx's `mirror` (nginx serves the old host to clients and sends the sink a copy of the
   * request): nothing is proxied, each request is answered `204` once read, and the old host is asked by the sink.
   */
  mirrorSink: boolean;
  /** Share of requests mirrored, 0 < sample ≤ 1. */
  sample: number;
  /** Mirrors waiting or in flight at most; one more is dropped (and counted). */
  queueLimit: number;
  /** Mirrors in flight at once. */
  concurrency: number;
  /** Time-out of every mirrored request (ms). */
  timeoutMs: number;
  /** Time-out of the served host's answer (ms): 504 to the client when its headers have not come by then. */
  serveTimeoutMs: number;
  /** Largest request body mirrored (bytes); a larger one is served but not mirrored. */
  bodyLimit: number;
  /** Largest answer compared (bytes); a larger one is served but not mirrored. */
  answerLimit: number;
  /** How many of the latest differing exchanges the page keeps. */
  keep: number;
  /** Mirrored-host failures in a row that open the circuit breaker (mirrors dropped, then one probe per delay). */
  breakerFailures: number;
  /** How long the open circuit waits before its probe (ms). */
  breakerDelayMs: number;
  /**
   * Nice value of the mirror's thread on Linux (0-19; 0: as the proxy), which then also runs at SCHED_IDLE, so
   * mirroring takes only the CPU serving leaves.
   */
  mirrorNice: number;
  /**
   * Share of the machine's CPU time busy (not idle, 0 to 1) over the latest half second at or over which mirrors are
   * dropped, counted, before they ask any host; 1: never.
   */
  cpuBusy: number;
  /** Old-host credentials and the new-service ones they stand for (`--credential-map FILE`); none by default. */
  credentialMap: CredentialPair[];
  /** Keep the old and new bodies of differing exchanges for the page (`--show-bodies`); default: the fields only. */
  showBodies: boolean;
  /** Bytes the copies of requests and answers may hold at once, in flight and queued; one more is dropped. */
  memoryLimit: number;
}

export const SHADOW_DEFAULTS = {
  serve: 'old',
  allowPost: false,
  mirrorSink: false,
  sample: 1,
  queueLimit: 100,
  concurrency: 4,
  timeoutMs: 5_000,
  serveTimeoutMs: 60_000,
  bodyLimit: 1_048_576,
  answerLimit: 10 * 1_048_576,
  keep: 20,
  breakerFailures: 5,
  breakerDelayMs: 10_000,
  mirrorNice: 19,
  cpuBusy: 0.7,
  showBodies: false,
  memoryLimit: 256 * 1_048_576,
} as const satisfies Partial<ShadowOptions>;

/** The page and its JSON twin, on the page's own port (page-access.ts: loopback by default, behind a token). */
export const PAGE_PATH = '/_shadow';
export const JSON_PATH = '/_shadow.json';
