/** Scalar parsers of ServiceStack's query binder (JSV rules) for ints and lists, returning undefined for an invalid value; booleans, GUIDs and dates are in src/scalars/. */

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Optional surrounding whitespace and a leading `-`; no `+`, no decimals, no overflow. */
export function parseLegacyInt32(text: string): number | undefined {
  const value = text.trim();
  if (!/^-?\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= INT32_MIN && n <= INT32_MAX ? n : undefined;
}

/** `1,2`, `[1,2]`, `[]`: the surrounding brackets are optional, items are comma-separated. */
export function splitLegacyList(text: string): string[] {
  const value = text.trim();
  const inner = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return inner.trim() === '' ? [] : inner.split(',').map((item) => item.trim());
}
