/** The report's summary: totals, then by endpoint and by rule (battery rule or source) and by allowing rule, with the fields that differ and how often. */
import { generalPath } from './comparers/paths.ts';
import type { ExchangeRecord, Outcome } from './types.ts';

export interface FieldCount {
  path: string;
  count: number;
  /** One example: old → new. */
  example: string;
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
}

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

export function describeDiff(d: { kind: string; old?: unknown; new?: unknown }): string {
  if (d.kind === 'added') return `added ${show(d.new)}`;
  if (d.kind === 'removed') return `removed ${show(d.old)}`;
  return `${show(d.old)} → ${show(d.new)}`;
}

function fieldCounts(diffs: { path: string; kind: string; old?: unknown; new?: unknown }[]): FieldCount[] {
  const counts = new Map<string, FieldCount>();
  for (const d of diffs) {
    const path = generalPath(d.path);
    const entry = counts.get(path) ?? { path, count: 0, example: describeDiff(d) };
    entry.count++;
    counts.set(path, entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.path.localeCompare(b.path));
}

const KEYS: Record<Outcome, keyof Omit<GroupSummary, 'name' | 'fields' | 'noise' | 'requests'>> = {
  identical: 'identical', different: 'different', 'noise-only': 'noiseOnly', 'allowed-only': 'allowedOnly', skipped: 'skipped',
};

function group(name: string, records: ExchangeRecord[]): GroupSummary {
  const g: GroupSummary = { name, requests: records.length, identical: 0, different: 0, noiseOnly: 0, allowedOnly: 0, skipped: 0, fields: [], noise: [] };
  for (const r of records) g[KEYS[r.outcome]]++;
  g.fields = fieldCounts(records.flatMap((r) => r.differences));
  g.noise = fieldCounts(records.flatMap((r) => r.noise));
  return g;
}

function groupBy(records: ExchangeRecord[], key: (r: ExchangeRecord) => string): GroupSummary[] {
  const groups = new Map<string, ExchangeRecord[]>();
  for (const r of records) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return [...groups].map(([name, rs]) => group(name, rs)).sort((a, b) => b.different - a.different || a.name.localeCompare(b.name));
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
  return {
    totals: {
      requests: all.requests, identical: all.identical, different: all.different, noiseOnly: all.noiseOnly, allowedOnly: all.allowedOnly, skipped: all.skipped,
      errors: records.filter((r) => r.old?.error || r.new?.error).length,
    },
    byEndpoint: groupBy(records, (r) => r.endpoint),
    byRule: groupBy(records, ruleOf),
    allowedBy: [...allowed].map(([rule, count]) => ({ rule, count })).sort((a, b) => b.count - a.count),
  };
}

/** The summary as text for the terminal. */
export function formatSummary(summary: Summary): string {
  const t = summary.totals;
  const lines: string[] = [];
  const table = (title: string, groups: GroupSummary[], onlyDiffering = false) => {
    lines.push('', title);
    const shown = onlyDiffering ? groups.filter((g) => g.different) : groups;
    const width = Math.max(8, ...shown.map((g) => g.name.length));
    lines.push(`  ${'name'.padEnd(width)}  requests  identical  different  noise-only  allowed-only  skipped`);
    for (const g of shown) {
      lines.push(`  ${g.name.padEnd(width)}  ${String(g.requests).padStart(8)}  ${String(g.identical).padStart(9)}  ${String(g.different).padStart(9)}  ${String(g.noiseOnly).padStart(10)}  ${String(g.allowedOnly).padStart(12)}  ${String(g.skipped).padStart(7)}`);
      for (const f of g.fields) lines.push(`    differs  ${f.path}  ×${f.count}  e.g. ${f.example}`);
      for (const f of g.noise) lines.push(`    noise    ${f.path}  ×${f.count}`);
    }
    if (groups.length > shown.length) lines.push(`  … and ${groups.length - shown.length} rules without differences (all in the JSON and HTML reports)`);
  };
  lines.push(`${t.requests} requests: ${t.identical} identical, ${t.different} different, ${t.noiseOnly} differing only in noise, ${t.allowedOnly} only in allowed ways, ${t.skipped} skipped, ${t.errors} with transport errors`);
  table('By endpoint', summary.byEndpoint);
  table('By rule (rules with differences)', summary.byRule, true);
  if (summary.allowedBy.length) {
    lines.push('', 'Allowed by rules');
    for (const a of summary.allowedBy) lines.push(`  ${a.rule}  ×${a.count}`);
  }
  return lines.join('\n');
}
