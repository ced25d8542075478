/**
 * Common and combined access logs (Apache, nginx, IIS's NCSA option):
 * `host ident user [date] "METHOD target HTTP/x" status bytes ["referer" "agent"]`.
 */
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';
import { logRecords, pathAndQuery, REPLAYABLE_METHOD } from './log-lines.ts';

export function readAccessLog(file: string, text: string): SourceResult {
  const { records, issues } = logRecords(file, text, { quote: '"', escape: '\\', relax_quotes: true });
  const requests: ReplayRequest[] = [];
  const problems: SourceIssue[] = [...issues];
  for (const { cells, line } of records) {
    const bad = (reason: string) => problems.push({ file, line, reason });
    if (cells.length < 7 || !cells[3]?.startsWith('[') || !cells[4]?.endsWith(']')) {
      bad('not a common/combined log line (host ident user [date] "request" status bytes)');
      continue;
    }
    const [method, target, protocol, ...rest] = cells[5]!.split(' ');
    if (
      !method ||
      !REPLAYABLE_METHOD.test(method) ||
      !target ||
      !/^HTTP\/\d(\.\d)?$/.test(protocol ?? '') ||
      rest.length
    ) {
      bad(`bad request line "${cells[5]}"`);
      continue;
    }
    if (!/^\d{3}$/.test(cells[6]!)) {
      bad(`bad status ${cells[6]}`);
      continue;
    }
    try {
      requests.push({ method, url: pathAndQuery(target), headers: {}, origin: { source: 'access-log', file, line } });
    } catch (error) {
      bad((error as Error).message);
    }
  }
  return { requests, issues: problems };
}
