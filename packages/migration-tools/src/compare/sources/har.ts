/**
 * HAR files (browser devtools, Fiddler, Charles): each entry's request, its path and query replayed on each host.
 * Read with jsonc-parser (strict JSON: no comments, no trailing commas), whose tree keeps source offsets, so a syntax
 * error and a bad entry are reported with their line numbers. Both steps are linear: the tree is built in one pass,
 * and entries' line numbers are counted on from the previous entry's (a count from the start for each entry made a
 * 25 MB file of 80,000 entries take two minutes).
 */
import type { Entry } from 'har-format';
import {
  findNodeAtLocation,
  getNodeValue,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';

/**
 * The line of each offset asked for, counting newlines on from the previous offset (from the start when it goes back).
 */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let at = 0;
  return (offset) => {
    if (offset < at) [line, at] = [1, 0];
    for (let nl = text.indexOf('\n', at); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) line++;
    at = offset;
    return line;
  };
}

export function readHar(file: string, text: string): SourceResult {
  const issues: SourceIssue[] = [];
  const requests: ReplayRequest[] = [];
  const lineAt = lineCounter(text);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length || !root) {
    const error = errors[0];
    return {
      requests,
      issues: [
        {
          file,
          line: error ? lineAt(error.offset) : 1,
          reason: `not a HAR file: ${error ? printParseErrorCode(error.error) : 'empty'}`,
        },
      ],
    };
  }
  const entries = findNodeAtLocation(root, ['log', 'entries']);
  if (entries?.type !== 'array')
    return { requests, issues: [{ file, line: 1, reason: 'not a HAR file: no log.entries array' }] };
  (entries.children ?? []).forEach((node: Node, index) => {
    const line = lineAt(node.offset);
    const bad = (reason: string) => issues.push({ file, line, reason: `entries[${index}]: ${reason}` });
    if (node.type !== 'object') return bad('not an object');
    const entry = getNodeValue(node) as Partial<Entry>;
    const request = entry.request;
    if (!request || typeof request !== 'object') return bad('no request');
    if (typeof request.method !== 'string' || !/^[A-Z]+$/i.test(request.method))
      return bad(`bad request.method ${JSON.stringify(request.method)}`);
    let url: URL;
    try {
      url = new URL(String(request.url));
    } catch {
      return bad(`bad request.url ${JSON.stringify(request.url)}`);
    }
    if (
      request.headers !== undefined &&
      !(
        Array.isArray(request.headers) &&
        request.headers.every((h) => typeof h?.name === 'string' && typeof h?.value === 'string')
      )
    ) {
      return bad('request.headers must be an array of {name, value}');
    }
    const headers: Record<string, string> = {};
    for (const h of request.headers ?? [])
      if (!/^(cookie|host|content-length)$/i.test(h.name)) headers[h.name] = h.value;
    const body = request.postData?.text;
    if (
      body !== undefined &&
      request.postData?.mimeType &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
    )
      headers['Content-Type'] = request.postData.mimeType;
    requests.push({
      method: request.method.toUpperCase(),
      url: url.pathname + url.search,
      headers,
      body: body || undefined,
      origin: { source: 'har', file, line },
    });
  });
  return { requests, issues };
}
