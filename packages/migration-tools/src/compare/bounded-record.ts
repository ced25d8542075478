/**
 * What a report keeps of one exchange (the shadow proxy's page and JSON, compare's JSON and HTML) is bounded in bytes,
 * whatever the answers: at most FIELDS differences (and as many noise and allowed fields) with each value's text
 * clipped to VALUE_CHARS; the rest is counted. Before, an exchange kept whole values (a 10 MB array added), and twenty
 * of them made the JSON longer than a string may be: JSON.stringify threw (the proxy exited, compare wrote nothing).
 */
import type { ExchangeRecord, FieldDiff } from './types.ts';

export const FIELDS = 50;
export const VALUE_CHARS = 512;

/** A value as kept: itself when its JSON is short, else the start of its JSON and how much more there was. */
export function clipValue(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    return value.length > VALUE_CHARS
      ? `${value.slice(0, VALUE_CHARS)}… (${value.length - VALUE_CHARS} more characters)`
      : value;
  }
  const text = JSON.stringify(value) ?? '';
  return text.length > VALUE_CHARS
    ? `${text.slice(0, VALUE_CHARS)}… (${text.length - VALUE_CHARS} more characters)`
    : value;
}

function clipDiffs<T extends FieldDiff>(diffs: T[]): { kept: T[]; more: number } {
  return {
    kept: diffs.slice(0, FIELDS).map((d) => ({ ...d, old: clipValue(d.old), new: clipValue(d.new) })),
    more: Math.max(0, diffs.length - FIELDS),
  };
}

/** The record with at most FIELDS entries per list, each value clipped; `omitted` counts what was left out. */
export function boundedRecord(record: ExchangeRecord): ExchangeRecord & { omitted?: Record<string, number> } {
  const differences = clipDiffs(record.differences);
  const noise = clipDiffs(record.noise);
  const allowed = clipDiffs(record.allowed);
  const omitted = Object.fromEntries(
    Object.entries({ differences: differences.more, noise: noise.more, allowed: allowed.more }).filter(
      ([, n]) => n > 0,
    ),
  );
  return {
    ...record,
    differences: differences.kept,
    noise: noise.kept,
    allowed: allowed.kept,
    ...(Object.keys(omitted).length ? { omitted } : {}),
  };
}
