/** Scalar parsers of ServiceStack's query binder (JSV rules), returning undefined for an invalid value. */

/** true: 1 t y on, false: 0 f n off (any case), else true/false; text after the first `,` is dropped. */
export function parseLegacyBoolean(text: string): boolean | undefined {
  const value = (text.split(',')[0] ?? '').trim();
  if (/^(1|t|y|on|true)$/i.test(value)) return true;
  if (/^(0|f|n|off|false)$/i.test(value)) return false;
  return undefined;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Optional surrounding whitespace and a leading `-`; no `+`, no decimals, no overflow. */
export function parseLegacyInt32(text: string): number | undefined {
  const value = text.trim();
  if (!/^-?\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= INT32_MIN && n <= INT32_MAX ? n : undefined;
}

/** 32 hex digits, 8-4-4-4-12, or either wrapped in {} or (), any case → 32 lowercase hex. */
export function parseLegacyGuid(text: string): string | undefined {
  let value = text.trim();
  if (/^\{.*\}$|^\(.*\)$/.test(value)) value = value.slice(1, -1);
  if (/^[0-9a-f]{32}$/i.test(value)) return value.toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return value.replace(/-/g, '').toLowerCase();
  return undefined;
}

/** `1,2`, `[1,2]`, `[]`: the surrounding brackets are optional, items are comma-separated. */
export function splitLegacyList(text: string): string[] {
  const value = text.trim();
  const inner = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return inner.trim() === '' ? [] : inner.split(',').map((item) => item.trim());
}
