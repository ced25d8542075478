/**
 * IIS W3C extended logs (what a .NET Framework host wrote): `#Fields:` names the columns (cs-method cs-uri-stem
 * cs-uri-query …, in any order, and may change mid-file); `-` is an empty value; spaces inside values are `+`.
 */
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';
import { logRecords, pathAndQuery, REPLAYABLE_METHOD } from './log-lines.ts';

export function readW3cLog(file: string, text: string): SourceResult {
  const { records, issues } = logRecords(file, text, { quote: false });
  const requests: ReplayRequest[] = [];
  const problems: SourceIssue[] = [...issues];
  let fields: string[] | undefined;
  for (const { cells, line } of records) {
    const bad = (reason: string) => problems.push({ file, line, reason });
    if (cells[0]?.startsWith('#')) {
      if (cells[0] === '#Fields:') fields = cells.slice(1).filter(Boolean);
      continue;
    }
    if (!fields) {
      bad('data line before any #Fields: directive');
      continue;
    }
    if (cells.length !== fields.length) {
      bad(`${cells.length} values for ${fields.length} #Fields`);
      continue;
    }
    const value = (name: string) => {
      const v = cells[fields!.indexOf(name)];
      return v === undefined || v === '-' ? undefined : v;
    };
    const stem = value('cs-uri-stem');
    if (!fields.includes('cs-uri-stem') || !stem) {
      bad('no cs-uri-stem');
      continue;
    }
    const method = (value('cs-method') ?? 'GET').toUpperCase();
    if (!REPLAYABLE_METHOD.test(method)) {
      bad(`unknown method ${method}`);
      continue;
    }
    try {
      const query = value('cs-uri-query');
      requests.push({
        method,
        url: pathAndQuery(encodeURI(stem.replace(/\+/g, ' ')) + (query ? `?${query}` : '')),
        headers: {},
        origin: { source: 'w3c', file, line },
      });
    } catch (error) {
      bad((error as Error).message);
    }
  }
  return { requests, issues: problems };
}
