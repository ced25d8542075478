/**
 * Scalar parsers of ServiceStack's query binder (JSV rules) for ints and lists, returning undefined for an invalid
 * value; booleans, GUIDs and dates are in src/scalars/.
 */

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function int32(value: string): number | undefined {
  const n = Number(value);
  return n >= INT32_MIN && n <= INT32_MAX ? n + 0 : undefined; // + 0 turns -0 into 0
}

/**
 * 4.5's int field (as a real 4.5.14 host read it): surrounding whitespace allowed, an optional `-`, no `+`, no
 * decimals, no leading zero (`01`, `00` and `-01` are invalid, `0` and `-0` are 0), no overflow.
 */
export function parseLegacyInt32(text: string): number | undefined {
  const value = text.trim();
  if (!/^-?(0|[1-9]\d{0,9})$/.test(value)) return undefined;
  return int32(value);
}

/**
 * An item of a `List<int>` (.NET int.Parse): surrounding whitespace, a sign and leading zeros are allowed (`01` is 1).
 */
export function parseLegacyListInt32(text: string): number | undefined {
  const value = text.trim();
  if (!/^[+-]?\d{1,20}$/.test(value)) return undefined;
  return int32(value.replace(/^\+/, ''));
}

/** `1,2`, `[1,2]`, `[]`: the surrounding brackets are optional, items are comma-separated. */
export function splitLegacyList(text: string): string[] {
  const value = text.trim();
  const inner = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return inner.trim() === '' ? [] : inner.split(',').map((item) => item.trim());
}
