/** Small helpers shared by the benchmarks: percentiles, formatting, a plain-text table. */

/** Nearest-rank percentile of unsorted samples (p in 0..100). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

/** Milliseconds as seconds, one decimal. */
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return '—';
  return r >= 100 ? `${r.toFixed(0)}×` : r >= 10 ? `${r.toFixed(1)}×` : `${r.toFixed(2)}×`;
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Renders rows as an aligned text table (first row = header). Numeric-looking cells are right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const numeric = /^[-+]?[\d,.]+(×|%| ms| s)?$|^—$/;
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c > 0 && numeric.test(cell) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  const out = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join('\n');
}

/** Parses `--name value` / `--flag` arguments. */
export function parseArgs(argv: readonly string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument "${a}"`);
    const eq = a.indexOf('=');
    if (eq > 0) {
      out.set(a.slice(2, eq), a.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(a.slice(2), next);
      i++;
    } else out.set(a.slice(2), true);
  }
  return out;
}

/** The positive whole number `--name` gives (`fallback` when absent); anything else stops the bench, naming it. */
export function intArg(args: ReadonlyMap<string, string | true>, name: string, fallback?: number): number {
  const given = args.get(name);
  const value = given === undefined ? fallback : given === true ? Number.NaN : Number(given);
  if (value === undefined || !Number.isSafeInteger(value) || value < 1)
    throw new Error(`--${name} takes a positive whole number, got ${given === true ? 'none' : `'${given}'`}`);
  return value;
}

/** `total` split into at most `rounds` whole parts, as even as they go, the larger first (none empty). */
export function roundSizes(total: number, rounds: number): number[] {
  const base = Math.floor(total / rounds);
  const larger = total % rounds;
  return Array.from({ length: rounds }, (_, round) => base + (round < larger ? 1 : 0)).filter((size) => size > 0);
}
