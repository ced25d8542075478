/**
 * What one exchange's record says of its answers: each answer's summary, the verdict from the fields it kept, and the
 * bodies its side-by-side view shows, clipped. The same rules for compare (run.ts) and the shadow proxy (mirror.ts).
 */
import type { AnswerSummary, Captured, ExchangeRecord, Outcome } from './types.ts';

/** An answer as the record keeps it: status, content type, error if any, time to a tenth of a millisecond. */
export function answerSummary(c: Captured): AnswerSummary {
  return {
    status: c.status,
    contentType: c.headers['content-type'],
    ...(c.error ? { error: c.error } : {}),
    ms: Math.round(c.ms * 10) / 10,
  };
}

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
