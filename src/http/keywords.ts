/** Query-string names the host reads itself; they never bind to a DTO field. */
export const Keywords = {
  format: 'format',
  callback: 'callback',
  debug: 'debug',
  jsconfig: 'jsconfig',
} as const;

export const RESERVED_QUERY_NAMES: ReadonlySet<string> = new Set(Object.values(Keywords));
