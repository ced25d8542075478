/**
 * HAR files (browser devtools, Fiddler, Charles): each entry's request, its path and query replayed on each host.
 * Checked with jsonc-parser's visitor (strict JSON: no comments, no trailing commas), which gives the line of each
 * entry and of a syntax error as its scanner counts them; the values then come from JSON.parse. Both are linear,
 * whatever the file's layout (a minified HAR is one line: counting lines apart from the parser scanned that line once
 * per entry).
 */
import type { Entry } from 'har-format';
import { printParseErrorCode, visit, type ParseErrorCode, type ParseOptions } from 'jsonc-parser';
import type { ReplayRequest, SourceIssue, SourceResult } from '../types.ts';

const STRICT: ParseOptions = { disallowComments: true, allowTrailingComma: false };
/** Depth of a `log.entries` item: the root object, `log`, the `entries` array. */
const ENTRY_DEPTH = 3;

/** The 1-based line of each `log.entries` item and the first syntax error, from jsonc-parser's visitor. */
function entryLines(text: string): { entries: number[]; error?: { code: ParseErrorCode; line: number } } {
  const entries: number[] = [];
  let error: { code: ParseErrorCode; line: number } | undefined;
  let depth = 0;
  const value = (startLine: number, path: () => (string | number)[]) => {
    if (depth !== ENTRY_DEPTH) return;
    const [log, list, index] = path();
    if (log === 'log' && list === 'entries' && typeof index === 'number') entries[index] = startLine + 1;
  };
  visit(
    text,
    {
      onObjectBegin: (_offset, _length, startLine, _character, path) => {
        value(startLine, path);
        depth++;
      },
      onArrayBegin: (_offset, _length, startLine, _character, path) => {
        value(startLine, path);
        depth++;
      },
      onObjectEnd: () => void depth--,
      onArrayEnd: () => void depth--,
      onLiteralValue: (_value, _offset, _length, startLine, _character, path) => value(startLine, path),
      onError: (code, _offset, _length, startLine) => void (error ??= { code, line: startLine + 1 }),
    },
    STRICT,
  );
  return { entries, error };
}

export function readHar(file: string, text: string): SourceResult {
  const issues: SourceIssue[] = [];
  const requests: ReplayRequest[] = [];
  const lines = entryLines(text);
  const notHar = (line: number, reason: string): SourceResult => ({
    requests,
    issues: [{ file, line, reason: `not a HAR file: ${reason}` }],
  });
  if (lines.error) return notHar(lines.error.line, printParseErrorCode(lines.error.code));
  if (!text.trim()) return notHar(1, 'empty');
  // Valid strict JSON (the visitor found no error): its values, read by the engine's own parser.
  const entries = (JSON.parse(text) as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) return notHar(1, 'no log.entries array');
  entries.forEach((value: unknown, index) => {
    const line = lines.entries[index] ?? 1;
    const bad = (reason: string) => issues.push({ file, line, reason: `entries[${index}]: ${reason}` });
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('not an object');
    const entry = value as Partial<Entry>;
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
