/**
 * Booleans, in one place and with no imports: the two vocabularies the service reads.
 */

/**
 * The legacy query binder (ServiceStack's JSV rules): true = `1 t y on true`, false = `0 f n off false`, any case;
 * text after the first `,` is dropped first (the MVC checkbox hack). Undefined when the value is none of these.
 */
export function parseLegacyBoolean(text: string): boolean | undefined {
  const value = (text.split(',')[0] ?? '').trim();
  if (/^(1|t|y|on|true)$/i.test(value)) return true;
  if (/^(0|f|n|off|false)$/i.test(value)) return false;
  return undefined;
}

/** Settings and data files (environment variables, CSV columns): `1/0`, `true/false`, `yes/no`, `on/off`, any case. */
export function parseSettingBoolean(text: string): boolean | undefined {
  const value = text.trim();
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  return undefined;
}
