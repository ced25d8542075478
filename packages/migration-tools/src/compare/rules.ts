/**
 * Allowed differences: `--ignore` paths (JSONPath, evaluated by jsonpath-plus on both bodies, so `$..BuildTime`,
 * `$.ReportModel.Rows[*].Url` and filters work), ignored headers, numeric tolerances, and a JSON rules file with all
 * of them, each optionally limited to one endpoint (`"GET /v1/echo/{Message}"`). A rule names a field whatever its
 * case convention: `$..CompanyName` also matches `companyName` (`?jsconfig=EmitCamelCaseNames:true`) and
 * `company_name` (`EmitLowercaseUnderscoreNames`), as ServiceStack's readers bind them alike.
 */
import { readFileSync } from 'node:fs';
import { JSONPath } from 'jsonpath-plus';
import type { FieldDiff } from './types.ts';

export const DEFAULT_HEADERS = ['Content-Type', 'Location', 'Vary', 'Cache-Control'];

export interface PathRule {
  /** A JSONPath on the body (`$.ReportModel.BuildTime`), `header <Name>` or `status`. */
  path: string;
  endpoint?: string;
  reason?: string;
}

export interface ToleranceRule extends PathRule {
  /** Largest allowed |old - new|. */
  absolute?: number;
  /** Largest allowed |old - new| / max(|old|, |new|). */
  relative?: number;
}

export interface Rules {
  /** Headers compared (display case). */
  headers: string[];
  ignore: PathRule[];
  tolerances: ToleranceRule[];
}

/** The rules file (`--rules file.json`): every key optional. */
export interface RulesFile {
  headers?: string[];
  /** Added to the compared headers. */
  extraHeaders?: string[];
  ignore?: (string | PathRule)[];
  tolerances?: ToleranceRule[];
}

export function loadRulesFile(file: string): RulesFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`rules file ${file}: ${(error as Error).message}`);
  }
  const rules = parsed as RulesFile;
  const problems: string[] = [];
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) problems.push('must be a JSON object');
  else {
    for (const key of Object.keys(rules))
      if (!['headers', 'extraHeaders', 'ignore', 'tolerances'].includes(key)) problems.push(`unknown key '${key}'`);
    for (const key of ['headers', 'extraHeaders'] as const) {
      if (rules[key] !== undefined && !(Array.isArray(rules[key]) && rules[key].every((h) => typeof h === 'string')))
        problems.push(`'${key}' must be an array of header names`);
    }
    (rules.ignore ?? []).forEach((r, i) => {
      if (typeof r !== 'string' && typeof r?.path !== 'string') problems.push(`ignore[${i}] needs a path`);
    });
    (rules.tolerances ?? []).forEach((t, i) => {
      if (typeof t?.path !== 'string') problems.push(`tolerances[${i}] needs a path`);
      if (typeof t?.absolute !== 'number' && typeof t?.relative !== 'number')
        problems.push(`tolerances[${i}] needs 'absolute' or 'relative'`);
    });
  }
  if (problems.length) throw new Error(`rules file ${file}: ${problems.join('; ')}`);
  return rules;
}

export function ruleName(rule: PathRule | ToleranceRule): string {
  const where = rule.endpoint ? ` (${rule.endpoint})` : '';
  if ('absolute' in rule || 'relative' in rule) {
    const t = rule as ToleranceRule;
    const absolute = t.absolute !== undefined ? ` ±${t.absolute}` : '';
    const relative = t.relative !== undefined ? ` ±${t.relative * 100}%` : '';
    return `tolerance ${t.path}${absolute}${relative}${where}`;
  }
  return `ignore ${rule.path}${where}`;
}

/** `--tolerance '$..Amount=0.01'` (absolute) or `'$..Amount=0.1%'` (relative). */
export function parseTolerance(text: string): ToleranceRule {
  const at = text.lastIndexOf('=');
  const path = text.slice(0, at);
  const amount = text.slice(at + 1);
  const value = Number(amount.replace(/%$/, ''));
  if (at <= 0 || !Number.isFinite(value) || value < 0)
    throw new Error(`--tolerance '${text}': expected PATH=NUMBER or PATH=NUMBER%`);
  return amount.endsWith('%') ? { path, relative: value / 100 } : { path, absolute: value };
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function within(rule: ToleranceRule, a: unknown, b: unknown): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x === undefined || y === undefined) return false;
  const delta = Math.abs(x - y);
  if (rule.absolute !== undefined && delta <= rule.absolute) return true;
  return rule.relative !== undefined && delta <= rule.relative * Math.max(Math.abs(x), Math.abs(y));
}

/** A field name in any case convention as one key: `CompanyName`, `companyName`, `company_name` → `companyname`. */
export function fieldKey(name: string): string {
  return name.replace(/[_-]/g, '').toLowerCase();
}

/** The tree with every object key as its fieldKey (the first of two keys that collide wins). */
function keyedByField(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyedByField);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const k = fieldKey(key);
    if (!(k in out)) out[k] = keyedByField(child);
  }
  return out;
}

/** The JSONPath with its member names (`.Name`, `..Name`, `['Name']`, `@.Name` in filters) as fieldKeys. */
export function pathByField(path: string): string {
  return path
    .replace(/(\.{1,2})([A-Za-z_][\w-]*)/g, (_all, dots: string, name: string) => dots + fieldKey(name))
    .replace(/\[(['"])(.*?)\1\]/g, (_all, quote: string, name: string) => `[${quote}${fieldKey(name)}${quote}]`);
}

/** Matches one exchange's differences against the rules; body paths are found once per rule and body tree. */
export class RuleMatcher {
  private readonly matched = new Map<PathRule, string[][]>();
  private keyedTrees?: unknown[];

  constructor(
    private readonly rules: Rules,
    private readonly endpoint: string,
    private readonly trees: unknown[],
  ) {}

  /** The name of the rule that allows this difference, if any. */
  allow(diff: FieldDiff): string | undefined {
    for (const rule of this.rules.ignore) if (this.covers(rule, diff)) return ruleName(rule);
    for (const rule of this.rules.tolerances) {
      if (diff.kind === 'changed' && this.covers(rule, diff) && within(rule, diff.old, diff.new)) return ruleName(rule);
    }
    return undefined;
  }

  private covers(rule: PathRule, diff: FieldDiff): boolean {
    if (rule.endpoint && rule.endpoint !== this.endpoint) return false;
    if (!rule.path.startsWith('$')) return rule.path.toLowerCase() === diff.path.toLowerCase();
    if (!diff.segments) return false;
    const segments = diff.segments.map((s) => (typeof s === 'string' ? fieldKey(s) : String(s)));
    return this.paths(rule).some((p) => p.length <= segments.length && p.every((s, i) => s === segments[i]));
  }

  private paths(rule: PathRule): string[][] {
    let found = this.matched.get(rule);
    if (!found) {
      this.keyedTrees ??= this.trees.map(keyedByField);
      const path = pathByField(rule.path);
      found = this.keyedTrees.flatMap((json) =>
        json === undefined
          ? []
          : (JSONPath({ path, json: json as object, resultType: 'path', wrap: true }) as string[]).map((p) =>
              JSONPath.toPathArray(p),
            ),
      );
      this.matched.set(rule, found);
    }
    return found;
  }
}
