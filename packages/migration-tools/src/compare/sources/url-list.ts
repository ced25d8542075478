/** A plain file of URLs (absolute or `/path?query`) or `METHOD URL` lines; blank lines and `#` comments skipped. */
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';
import { pathAndQuery, REPLAYABLE_METHOD } from './log-lines.ts';

export function readUrlList(file: string, text: string): SourceResult {
  const requests: ReplayRequest[] = [];
  const issues: SourceIssue[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const words = line.split(/\s+/);
    const [method, target] = words.length === 2 ? [words[0]!.toUpperCase(), words[1]!] : ['GET', words[0]!];
    if (words.length > 2 || !REPLAYABLE_METHOD.test(method))
      return issues.push({ file, line: i + 1, reason: `expected URL or METHOD URL, got '${line}'` });
    try {
      requests.push({ method, url: pathAndQuery(target), headers: {}, origin: { source: 'urls', file, line: i + 1 } });
    } catch (error) {
      issues.push({ file, line: i + 1, reason: (error as Error).message });
    }
  });
  return { requests, issues };
}
