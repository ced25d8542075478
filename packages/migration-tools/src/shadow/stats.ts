/**
 * The live figures: counts per endpoint (served, mirrored, identical, different, noise only, allowed only, errors,
 * dropped, skipped), the fields that differ and the noise found (generalised paths, how often, an example), old and
 * new latency (p50/p99 over each side's latest answers) and the latest differing exchanges (already redacted). Bounded:
 * at most MAX_ENDPOINTS endpoints by name (the rest counted under `(other endpoints)`), a window of latencies, `keep`
 * exchanges.
 */
import { generalPath } from '../compare/comparers/paths.ts';
import { describeDiff, type FieldCount } from '../compare/summary.ts';
import type { ExchangeRecord, FieldDiff } from '../compare/types.ts';
import type { BreakerSnapshot } from './breaker.ts';
import type { MirrorOutcome } from './mirror.ts';

export interface Counts {
  /** Requests served to clients. */
  served: number;
  /** Mirrored and compared (the outcomes below add up to it). */
  mirrored: number;
  identical: number;
  different: number;
  noiseOnly: number;
  allowedOnly: number;
  /** A mirrored or served host failed or timed out. */
  errors: number;
  /** Not mirrored for want of room: the mirror queue was full, or the circuit breaker was open (see droppedBecause). */
  dropped: number;
  /** Not mirrored by choice: method, sample, body size. */
  skipped: number;
}

export interface LatencySummary {
  /** Answers in the window. */
  count: number;
  p50: number | null;
  p99: number | null;
}

export interface EndpointSnapshot extends Counts {
  endpoint: string;
  latency: { old: LatencySummary; new: LatencySummary };
  fields: FieldCount[];
  noise: FieldCount[];
}

export interface ShadowSnapshot {
  startedAt: string;
  at: string;
  serving: 'old' | 'new';
  hosts: { old: string; old2: string; new: string };
  queue: { waitingOrInFlight: number; limit: number; concurrency: number };
  /**
   * Connections accepted on the proxy's (or the sink's) port: behind nginx, a few kept alive and reused, not one per
   * mirrored request.
   */
  listener: { connections: number };
  /**
   * The mirror's circuit breaker (open: the mirrored host failed that many times in a row; mirrors dropped until a
   * probe succeeds).
   */
  breaker: BreakerSnapshot;
  totals: Counts;
  latency: { old: LatencySummary; new: LatencySummary };
  skippedBecause: Record<string, number>;
  droppedBecause: Record<string, number>;
  endpoints: EndpointSnapshot[];
  /** The latest differing exchanges, newest first. */
  latest: ExchangeRecord[];
}

const MAX_ENDPOINTS = 200;
const OTHER = '(other endpoints)';
const WINDOW = 2_048;
const FIELDS_SHOWN = 20;

/** The latest WINDOW latencies; percentiles by nearest rank. */
class LatencyWindow {
  private readonly samples: number[] = [];
  private next = 0;

  add(ms: number): void {
    if (this.samples.length < WINDOW) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
  }

  summary(): LatencySummary {
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) =>
      sorted.length
        ? Math.round(sorted[Math.min(sorted.length, Math.ceil((p / 100) * sorted.length)) - 1]! * 10) / 10
        : null;
    return { count: sorted.length, p50: at(50), p99: at(99) };
  }
}

function emptyCounts(): Counts {
  return {
    served: 0,
    mirrored: 0,
    identical: 0,
    different: 0,
    noiseOnly: 0,
    allowedOnly: 0,
    errors: 0,
    dropped: 0,
    skipped: 0,
  };
}

class EndpointStats {
  readonly counts = emptyCounts();
  readonly latency = { old: new LatencyWindow(), new: new LatencyWindow() };
  readonly fields = new Map<string, FieldCount>();
  readonly noise = new Map<string, FieldCount>();
}

function countFields(into: Map<string, FieldCount>, diffs: FieldDiff[]): void {
  for (const d of diffs) {
    const path = generalPath(d.path);
    const entry = into.get(path);
    if (entry) entry.count++;
    else if (into.size < 1_000) into.set(path, { path, count: 1, example: describeDiff(d) });
  }
}

const top = (fields: Map<string, FieldCount>) =>
  [...fields.values()].sort((a, b) => b.count - a.count || a.path.localeCompare(b.path)).slice(0, FIELDS_SHOWN);

export class ShadowStats {
  private readonly startedAt = new Date().toISOString();
  private readonly endpoints = new Map<string, EndpointStats>();
  private readonly all = new EndpointStats();
  private readonly skippedBecause = new Map<string, number>();
  private readonly droppedBecause = new Map<string, number>();
  private readonly latest: ExchangeRecord[] = [];
  private connections = 0;

  constructor(
    private readonly info: Pick<ShadowSnapshot, 'serving' | 'hosts'> & {
      keep: number;
      queueLimit: number;
      concurrency: number;
      queued: () => number;
      breaker: () => BreakerSnapshot;
    },
  ) {}

  private of(endpoint: string): EndpointStats[] {
    let stats = this.endpoints.get(endpoint);
    if (!stats) {
      const name = this.endpoints.size < MAX_ENDPOINTS ? endpoint : OTHER;
      stats = this.endpoints.get(name) ?? new EndpointStats();
      this.endpoints.set(name, stats);
    }
    return [stats, this.all];
  }

  /** A connection was accepted on the proxy's (or the sink's) port. */
  connected(): void {
    this.connections++;
  }

  served(endpoint: string): void {
    for (const s of this.of(endpoint)) s.counts.served++;
  }

  skipped(endpoint: string, reason: string): void {
    for (const s of this.of(endpoint)) s.counts.skipped++;
    this.skippedBecause.set(reason, (this.skippedBecause.get(reason) ?? 0) + 1);
  }

  dropped(endpoint: string, reason: string): void {
    for (const s of this.of(endpoint)) s.counts.dropped++;
    this.droppedBecause.set(reason, (this.droppedBecause.get(reason) ?? 0) + 1);
  }

  /** The served host failed (the client got a 502 or 504): nothing to mirror. */
  servedFailed(endpoint: string): void {
    for (const s of this.of(endpoint)) s.counts.errors++;
  }

  mirrorFailed(endpoint: string): void {
    for (const s of this.of(endpoint)) {
      s.counts.mirrored++;
      s.counts.errors++;
    }
  }

  compared(outcome: MirrorOutcome, record: ExchangeRecord): void {
    for (const s of this.of(record.endpoint)) {
      s.counts.mirrored++;
      s.counts[outcome]++;
      if (outcome === 'errors') continue;
      s.latency.old.add(record.old!.ms);
      s.latency.new.add(record.new!.ms);
      countFields(s.fields, record.differences);
      countFields(s.noise, record.noise);
    }
    if (outcome === 'different' || outcome === 'errors') {
      this.latest.unshift(record);
      this.latest.length = Math.min(this.latest.length, this.info.keep);
    }
  }

  snapshot(): ShadowSnapshot {
    const latency = (s: EndpointStats) => ({ old: s.latency.old.summary(), new: s.latency.new.summary() });
    return {
      startedAt: this.startedAt,
      at: new Date().toISOString(),
      serving: this.info.serving,
      hosts: this.info.hosts,
      queue: { waitingOrInFlight: this.info.queued(), limit: this.info.queueLimit, concurrency: this.info.concurrency },
      breaker: this.info.breaker(),
      listener: { connections: this.connections },
      totals: { ...this.all.counts },
      latency: latency(this.all),
      skippedBecause: Object.fromEntries(this.skippedBecause),
      droppedBecause: Object.fromEntries(this.droppedBecause),
      endpoints: [...this.endpoints]
        .map(([endpoint, s]) => ({
          endpoint,
          ...s.counts,
          latency: latency(s),
          fields: top(s.fields),
          noise: top(s.noise),
        }))
        .sort((a, b) => b.different - a.different || b.served - a.served || a.endpoint.localeCompare(b.endpoint)),
      latest: [...this.latest],
    };
  }
}
