/**
 * The report's summary: totals, then by endpoint and by rule (battery rule or source) and by allowing rule, with the
 * fields that differ and how often.
 */
import { generalPath } from './comparers/paths.ts';
import type { ExchangeRecord, FieldDiff, Outcome } from './types.ts';

export interface FieldCount {
  path: string;
  count: number;
  /** One example: old → new. */
  example: string;
  /** For noise: why it is noise (the first reason seen). */
  why?: string;
  /** In the report-wide lists: how many endpoints show it. */
  endpoints?: number;
}

export interface GroupSummary {
  name: string;
  requests: number;
  identical: number;
  different: number;
  noiseOnly: number;
  allowedOnly: number;
  skipped: number;
  /** Fields that differ (generalised paths), most frequent first. */
  fields: FieldCount[];
  /** Fields found to be noise. */
  noise: FieldCount[];
}

export interface Summary {
  totals: Omit<GroupSummary, 'name' | 'fields' | 'noise'> & { errors: number };
  byEndpoint: GroupSummary[];
  byRule: GroupSummary[];
  /** How many differences each explicit rule allowed. */
  allowedBy: { rule: string; count: number }[];
  /** Why requests were not replayed, each reason once with how many, most first. */
  skippedBecause: { reason: string; count: number }[];
  /** Report-wide: each differing field (generalised path) once, with how often and in how many endpoints. */
  differences: FieldCount[];
  /** Report-wide: each noise field once, with why it is noise. */
  noise: FieldCount[];
}

function show(value: unknown): string {
  const text =
    value === undefined
      ? '(absent)'
      : typeof value === 'string'
        ? JSON.stringify(value)
        : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

export function describeDiff(d: { kind: string; old?: unknown; new?: unknown }): string {
  if (d.kind === 'added') return `added ${show(d.new)}`;
  if (d.kind === 'removed') return `removed ${show(d.old)}`;
  return `${show(d.old)} → ${show(d.new)}`;
}

type Found = FieldDiff & { endpoint?: string };

function fieldCounts(diffs: Found[], withEndpoints = false): FieldCount[] {
  const counts = new Map<string, FieldCount & { seen: Set<string> }>();
  for (const d of diffs) {
    const path = generalPath(d.path);
    const entry = counts.get(path) ?? {
      path,
      count: 0,
      example: describeDiff(d),
      ...(d.why ? { why: d.why } : {}),
      seen: new Set<string>(),
    };
    entry.count++;
    if (d.endpoint) entry.seen.add(d.endpoint);
    counts.set(path, entry);
  }
  return [...counts.values()]
    .map(({ seen, ...count }) => (withEndpoints ? { ...count, endpoints: seen.size } : count))
    .sort((a, b) => b.count - a.count || a.path.localeCompare(b.path));
}

const KEYS: Record<Outcome, keyof Omit<GroupSummary, 'name' | 'fields' | 'noise' | 'requests'>> = {
  identical: 'identical',
  different: 'different',
  'noise-only': 'noiseOnly',
  'allowed-only': 'allowedOnly',
  skipped: 'skipped',
};

function group(name: string, records: ExchangeRecord[]): GroupSummary {
  const g: GroupSummary = {
    name,
    requests: records.length,
    identical: 0,
    different: 0,
    noiseOnly: 0,
    allowedOnly: 0,
    skipped: 0,
    fields: [],
    noise: [],
  };
  for (const r of records) g[KEYS[r.outcome]]++;
  g.fields = fieldCounts(records.flatMap((r) => r.differences));
  g.noise = fieldCounts(records.flatMap((r) => r.noise));
  return g;
}

function groupBy(records: ExchangeRecord[], key: (r: ExchangeRecord) => string): GroupSummary[] {
  const groups = new Map<string, ExchangeRecord[]>();
  for (const r of records) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return [...groups]
    .map(([name, rs]) => group(name, rs))
    .sort((a, b) => b.different - a.different || a.name.localeCompare(b.name));
}

/** The battery rule, else the source and file a request came from. */
export function ruleOf(r: ExchangeRecord): string {
  const o = r.request.origin;
  return o.rule ?? `${o.source}${o.file ? ` ${o.file}` : ''}`;
}

export function summarise(records: ExchangeRecord[]): Summary {
  const all = group('all', records);
  const allowed = new Map<string, number>();
  for (const r of records) for (const a of r.allowed) allowed.set(a.rule, (allowed.get(a.rule) ?? 0) + 1);
  const skipped = new Map<string, number>();
  for (const r of records) if (r.skipped) skipped.set(r.skipped, (skipped.get(r.skipped) ?? 0) + 1);
  return {
    totals: {
      requests: all.requests,
      identical: all.identical,
      different: all.different,
      noiseOnly: all.noiseOnly,
      allowedOnly: all.allowedOnly,
      skipped: all.skipped,
      errors: records.filter((r) => r.old?.error || r.new?.error).length,
    },
    byEndpoint: groupBy(records, (r) => r.endpoint),
    byRule: groupBy(records, ruleOf),
    allowedBy: [...allowed].map(([rule, count]) => ({ rule, count })).sort((a, b) => b.count - a.count),
    skippedBecause: [...skipped]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    differences: fieldCounts(
      records.flatMap((r) => r.differences.map((d) => ({ ...d, endpoint: r.endpoint }))),
      true,
    ),
    noise: fieldCounts(
      records.flatMap((r) => r.noise.map((d) => ({ ...d, endpoint: r.endpoint }))),
      true,
    ),
  };
}

/** Lines of at most `max` items, then how many more. */
function firstOf<T>(
  items: readonly T[],
  max: number,
  line: (item: T) => string,
  more: (n: number) => string,
): string[] {
  const lines = items.slice(0, max).map(line);
  if (items.length > max) lines.push(more(items.length - max));
  return lines;
}

const where = (f: FieldCount) => (f.endpoints && f.endpoints > 1 ? ` in ${f.endpoints} endpoints` : '');

/**
 * The summary as text for the terminal, compact: each differing field and each noise field once with its count
 * (a difference repeated in every report answer is one line), then the first endpoints and rules with differences
 * (most differences first), each endpoint with its first few fields. Everything else is in the JSON and HTML reports.
 */
export function formatSummary(
  summary: Summary,
  options: { fieldsPerGroup?: number; fields?: number; groups?: number } = {},
): string {
  const perGroup = options.fieldsPerGroup ?? 3;
  const maxGroups = options.groups ?? 15;
  const maxFields = options.fields ?? 20;
  const t = summary.totals;
  const lines: string[] = [];
  const table = (title: string, groups: GroupSummary[], withFields: boolean) => {
    const differing = groups.filter((g) => g.different);
    if (!differing.length) return;
    const shown = differing.slice(0, maxGroups);
    const without = groups.length - differing.length;
    lines.push(
      '',
      `${title} (${differing.length} with differences${without ? `; ${without} without, not listed` : ''})`,
    );
    const width = Math.max(8, ...shown.map((g) => g.name.length));
    lines.push(`  ${'name'.padEnd(width)}  requests  identical  different  noise-only  allowed-only  skipped`);
    for (const g of shown) {
      lines.push(
        `  ${g.name.padEnd(width)}  ${String(g.requests).padStart(8)}  ${String(g.identical).padStart(9)}  ` +
          `${String(g.different).padStart(9)}  ${String(g.noiseOnly).padStart(10)}  ` +
          `${String(g.allowedOnly).padStart(12)}  ${String(g.skipped).padStart(7)}`,
      );
      if (withFields)
        lines.push(
          ...firstOf(
            g.fields,
            perGroup,
            (f) => `    differs  ${f.path}  ×${f.count}  e.g. ${f.example}`,
            (n) => `    … ${n} more fields`,
          ),
        );
    }
    if (differing.length > shown.length)
      lines.push(`  … ${differing.length - shown.length} more with differences (JSON and HTML reports)`);
  };
  lines.push(
    `${t.requests} requests: ${t.identical} identical, ${t.different} different, ${t.noiseOnly} differing only ` +
      `in noise, ${t.allowedOnly} only in allowed ways, ${t.skipped} skipped, ${t.errors} with transport errors`,
  );
  if (summary.skippedBecause.length) {
    lines.push('', 'Skipped (not replayed)');
    for (const s of summary.skippedBecause) lines.push(`  ${String(s.count).padStart(6)}  ${s.reason}`);
  }
  if (summary.differences.length) {
    lines.push('', 'Differences (each field once)');
    lines.push(
      ...firstOf(
        summary.differences,
        maxFields,
        (f) => `  differs  ${f.path}  ×${f.count}${where(f)}  e.g. ${f.example}`,
        (n) => `  … ${n} more fields (JSON and HTML reports)`,
      ),
    );
  }
  if (summary.noise.length) {
    lines.push('', 'Noise (not differences)');
    lines.push(
      ...firstOf(
        summary.noise,
        maxFields,
        (f) => `  noise    ${f.path}  ×${f.count}${where(f)}  ${f.why ?? ''}`.trimEnd(),
        (n) => `  … ${n} more noise fields`,
      ),
    );
  }
  table('By endpoint', summary.byEndpoint, true);
  table('By rule', summary.byRule, false);
  if (summary.allowedBy.length) {
    lines.push('', 'Allowed by rules');
    for (const a of summary.allowedBy) lines.push(`  ${a.rule}  ×${a.count}`);
  }
  return lines.join('\n');
}
