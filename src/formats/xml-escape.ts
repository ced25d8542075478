/**
 * Escaping of the DataContract XML documents' values, as the 4.5.14 host's XmlWriter (default XmlWriterSettings)
 * wrote them: in text only `&`, `<` and `>` become entities, `'` and `"` stay as they are, and CR LF or a lone CR
 * becomes LF (NewLineHandling.Replace with Mono's NewLineChars). Attribute values escape all five. Passed to
 * fast-xml-parser's XMLBuilder as its tagValueProcessor/attributeValueProcessor (with processEntities off).
 */

const TEXT_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '\n' };
const ATTRIBUTE_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  "'": '&apos;',
  '"': '&quot;',
};

/**
 * Characters XML 1.0 cannot carry at all (C0 controls but tab/LF/CR, U+FFFE/U+FFFF, lone surrogates) become U+FFFD:
 * the host's XmlWriter threw on them mid-answer (a cut-off `200`), see the README's deviations.
 */
function xmlChars(text: string): string {
  return text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

/** An element's text content. */
export function escapeXmlText(_name: string, value: unknown): string {
  return xmlChars(String(value)).replace(/\r\n?|[&<>]/g, (c) => TEXT_ENTITIES[c[0]!]!);
}

/** An attribute's value. */
export function escapeXmlAttribute(_name: string, value: unknown): string {
  return xmlChars(String(value)).replace(/[&<>'"]/g, (c) => ATTRIBUTE_ENTITIES[c]!);
}
