/**
 * Booleans, in one place and with no imports: the two vocabularies the service reads.
 */

/**
 * The legacy query binder, as a real ServiceStack 4.5.14 host read booleans: the text before the first `,` (the MVC
 * checkbox hack); a 1-character value is true only for `1`, a 2-character one only for `on` (so `t`, `y`, `n`, `2`,
 * `no`, `ON` read as false, with no error); anything else must be `true` or `false` in any case, without surrounding
 * spaces (`off`, `yes`, `" true"` are undefined: a binding error).
 */
export function parseLegacyBoolean(text: string): boolean | undefined {
  const value = legacyBooleanText(text);
  if (value.length === 1) return value === '1';
  if (value.length === 2) return value === 'on';
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return undefined;
}

/** The part of a boolean value 4.5 reads (and names in its error message): the text before the first `,`. */
export function legacyBooleanText(text: string): string {
  const comma = text.indexOf(',');
  return comma === -1 ? text : text.slice(0, comma);
}

/** Settings and data files (environment variables, CSV columns): `1/0`, `true/false`, `yes/no`, `on/off`, any case. */
export function parseSettingBoolean(text: string): boolean | undefined {
  const value = text.trim();
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  return undefined;
}
