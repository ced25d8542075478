/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, so a proxy never forwards them, in either
 * direction; every other header passes unchanged, in its order and case (raw header lists, as node:http keeps them).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The raw list (`[name, value, name, value, …]`) without hop-by-hop headers and those the Connection header names. */
export function endToEnd(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection')
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && !named.has(lower)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** The raw list with `headers` set (each replaces any header of its name, whatever its case). */
export function withHeaders(raw: readonly string[], headers: Record<string, string>): string[] {
  const replaced = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!replaced.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  for (const [name, value] of Object.entries(headers)) out.push(name, value);
  return out;
}

/** The raw list as the record of lower-cased names compare's replay takes (repeated headers joined with `, `). */
export function headerRecord(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    out[lower] = out[lower] === undefined ? raw[i + 1]! : `${out[lower]}, ${raw[i + 1]}`;
  }
  return out;
}
