/**
 * The command-line options `npm run compare` and `npm run shadow` share: per-host headers and what is compared and
 * allowed.
 */
import { DEFAULT_HEADERS, loadRulesFile, parseTolerance, type PathRule, type Rules } from '../src/compare/rules.ts';

/** A command line that cannot run: printed with the usage, exit 2. */
export class UsageError extends Error {}

/** Repeated `--x-header 'Name: value'` options as a header record. */
export function headerPairs(values: string[] | undefined, option: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf(':');
    if (at <= 0) throw new UsageError(`${option} '${value}': expected 'Name: value'`);
    out[value.slice(0, at).trim()] = value.slice(at + 1).trim();
  }
  return out;
}

/** `--header`, `--headers`, `--ignore`, `--tolerance` and `--rules FILE`, the file's entries first. */
export function rulesFromOptions(o: {
  header?: string[];
  headers?: string;
  ignore?: string[];
  tolerance?: string[];
  rules?: string;
}): Rules {
  const file = o.rules ? loadRulesFile(o.rules) : {};
  return {
    headers: [
      ...(o.headers
        ? o.headers
            .split(',')
            .map((h) => h.trim())
            .filter(Boolean)
        : (file.headers ?? DEFAULT_HEADERS)),
      ...(file.extraHeaders ?? []),
      ...(o.header ?? []),
    ],
    ignore: [
      ...(file.ignore ?? []).map((r): PathRule => (typeof r === 'string' ? { path: r } : r)),
      ...(o.ignore ?? []).map((path) => ({ path })),
    ],
    tolerances: [...(file.tolerances ?? []), ...(o.tolerance ?? []).map(parseTolerance)],
  };
}
