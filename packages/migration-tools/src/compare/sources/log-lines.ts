/**
 * Log files tokenised by csv-parse (space-delimited), each record with the line it started on; a bad record is skipped
 * and reported.
 */
import { parse, type Options } from 'csv-parse/sync';
import type { SourceIssue } from '../types.ts';

export interface LogRecord {
  cells: string[];
  line: number;
}

export function logRecords(
  file: string,
  text: string,
  options: Options,
): { records: LogRecord[]; issues: SourceIssue[] } {
  const issues: SourceIssue[] = [];
  const parsed = parse(text, {
    delimiter: ' ',
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
    on_skip: (error) => {
      if (error) issues.push({ file, line: (error as { lines?: number }).lines ?? 0, reason: error.message });
      return undefined;
    },
    ...options,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  return {
    records: parsed.map(({ record, info }) => ({ cells: record.map((c) => c.replace(/\r$/, '')), line: info.lines })),
    issues,
  };
}

/** A path and query as sent, or an error for something that is not one. */
export function pathAndQuery(target: string): string {
  // A path is read as a path even when it starts with `//` (an empty segment, not a host).
  if (!target.startsWith('/') && !/^https?:\/\/[^/]/i.test(target)) throw new Error(`not a URL path: ${target}`);
  const url = target.startsWith('/') ? new URL(`http://log.invalid${target}`) : new URL(target);
  return url.pathname + url.search;
}

export const REPLAYABLE_METHOD = /^(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS)$/;
