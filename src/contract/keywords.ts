/** Query-string names the host reads itself; they never bind to a DTO field. */
export const Keywords = {
  format: 'format',
  callback: 'callback',
  debug: 'debug',
  jsconfig: 'jsconfig',
} as const;

export const RESERVED_QUERY_NAMES: ReadonlySet<string> = new Set(Object.values(Keywords));

/**
 * A keyword's value from a query object, its name matched case-insensitively (`?Callback=`), as .NET's QueryString did.
 */
export function keywordValue(query: Record<string, unknown>, name: string): string | undefined {
  // for…in, not Object.entries: read on every request, mostly of an empty query (nothing to allocate).
  for (const key in query) {
    if (key.toLowerCase() !== name) continue;
    const value = query[key];
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string') return text;
  }
  return undefined;
}

/**
 * A keyword's text as .NET's `QueryString[name]` gave it: every value of the name (in any case), in the query's order,
 * joined by `,` (`?jsconfig=a&jsconfig=b` → `a,b`).
 */
export function keywordText(query: Record<string, unknown>, name: string): string | undefined {
  const values: string[] = [];
  for (const key in query) {
    if (key.toLowerCase() !== name) continue;
    const value = query[key];
    for (const text of Array.isArray(value) ? value : [value]) if (typeof text === 'string') values.push(text);
  }
  return values.length ? values.join(',') : undefined;
}
