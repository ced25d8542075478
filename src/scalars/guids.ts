/**
 * GUIDs, in one place and with no imports. Written as 32 lowercase hex digits (ServiceStack's wire form and the
 * store's); read as .NET's Guid.Parse read them: 32 hex, 8-4-4-4-12, either wrapped in `{}` or `()`, any case,
 * surrounding whitespace trimmed.
 */
const N_FORM = /^[0-9a-f]{32}$/i;
const D_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical 32-lowercase-hex form of a GUID, or undefined when the text is not one. */
export function parseGuid(text: string): string | undefined {
  let value = text.trim();
  if (/^\{.*\}$|^\(.*\)$/.test(value)) value = value.slice(1, -1);
  if (N_FORM.test(value)) return value.toLowerCase();
  if (D_FORM.test(value)) return value.replace(/-/g, '').toLowerCase();
  return undefined;
}
