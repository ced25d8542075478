/**
 * HAR files (browser devtools, Fiddler, Charles): each entry's request, its path and query replayed on each host.
 * Read with `yaml` (JSON is YAML 1.2) for source positions, so a bad entry is reported with its line number.
 */
import type { Entry } from 'har-format';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';

function lineOf(node: Node | null | undefined, lines: LineCounter): number {
  return node?.range ? lines.linePos(node.range[0]).line : 1;
}

export function readHar(file: string, text: string): SourceResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  const issues: SourceIssue[] = [];
  const requests: ReplayRequest[] = [];
  if (doc.errors.length) {
    const error = doc.errors[0]!;
    return { requests, issues: [{ file, line: error.linePos?.[0]?.line ?? 1, reason: `not a HAR file: ${error.message.split('\n')[0]}` }] };
  }
  const entries = doc.getIn(['log', 'entries'], true);
  if (!isSeq(entries)) return { requests, issues: [{ file, line: 1, reason: 'not a HAR file: no log.entries array' }] };
  entries.items.forEach((node, index) => {
    const line = lineOf(node as Node, lines);
    const bad = (reason: string) => issues.push({ file, line, reason: `entries[${index}]: ${reason}` });
    if (!isMap(node)) return bad('not an object');
    const entry = node.toJSON() as Partial<Entry>;
    const request = entry.request;
    if (!request || typeof request !== 'object') return bad('no request');
    if (typeof request.method !== 'string' || !/^[A-Z]+$/i.test(request.method)) return bad(`bad request.method ${JSON.stringify(request.method)}`);
    let url: URL;
    try {
      url = new URL(String(request.url));
    } catch {
      return bad(`bad request.url ${JSON.stringify(request.url)}`);
    }
    if (request.headers !== undefined && !(Array.isArray(request.headers) && request.headers.every((h) => typeof h?.name === 'string' && typeof h?.value === 'string'))) {
      return bad('request.headers must be an array of {name, value}');
    }
    const headers: Record<string, string> = {};
    for (const h of request.headers ?? []) if (!/^(cookie|host|content-length)$/i.test(h.name)) headers[h.name] = h.value;
    const body = request.postData?.text;
    if (body !== undefined && request.postData?.mimeType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = request.postData.mimeType;
    requests.push({ method: request.method.toUpperCase(), url: url.pathname + url.search, headers, body: body || undefined, origin: { source: 'har', file, line } });
  });
  return { requests, issues };
}
