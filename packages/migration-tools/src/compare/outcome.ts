/**
 * One exchange's verdict from the fields it kept, and the clipping of the bodies its side-by-side view shows: the same
 * rules for compare (run.ts) and the shadow proxy (shadow/mirror.ts).
 */
import type { ExchangeRecord, Outcome } from './types.ts';

/** Different when a field differs; else noise-only, allowed-only or identical by what was set aside. */
export function outcomeOf(record: Pick<ExchangeRecord, 'differences' | 'noise' | 'allowed'>): Outcome {
  if (record.differences.length) return 'different';
  if (record.noise.length) return 'noise-only';
  return record.allowed.length ? 'allowed-only' : 'identical';
}

/** A body as shown: itself up to max characters, else its start and how many characters more there were. */
export function clipBody(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}
