/** A request's Content-Type, read once for every body reader (forms, documents, SOAP). */

/** Form bodies: read as flat form fields (request-body.ts); answered in the default format (negotiate.ts). */
export const URLENCODED_FORM = 'application/x-www-form-urlencoded';
export const MULTIPART_FORM = 'multipart/form-data';
export const FORM_MEDIA_TYPES: ReadonlySet<string> = new Set([URLENCODED_FORM, MULTIPART_FORM]);

export interface ContentTypeInfo {
  /** Lower-cased media type without parameters; '' when the header is absent. */
  mediaType: string;
  charset?: string;
  /** The `action` parameter of application/soap+xml (SOAP 1.2 part 2, 7.1.4 / RFC 3902). */
  action?: string;
}

/** Parses the media type and the parameters we use (charset, action); tolerant of quoting and spacing. */
export function parseContentType(header: string | undefined): ContentTypeInfo {
  if (!header) return { mediaType: '' };
  const semicolon = header.indexOf(';');
  if (semicolon < 0) return { mediaType: header.trim().toLowerCase() }; // no parameters
  const info: ContentTypeInfo = { mediaType: header.slice(0, semicolon).trim().toLowerCase() };
  // RFC 9110 parameters: token=token or token="quoted string" (a quoted value may contain ';').
  const params = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const [, rawName = '', rawValue = ''] of header.slice(semicolon).matchAll(params)) {
    const name = rawName.toLowerCase();
    const value = rawValue.startsWith('"') ? rawValue.slice(1, -1).replace(/\\(.)/g, '$1') : rawValue.trim();
    if (name === 'charset') info.charset = value.toLowerCase();
    else if (name === 'action') info.action = value;
  }
  return info;
}
