/**
 * A DataContract XML request body (`/xml/reply/{Op}`, as ServiceStack's XmlServiceClient sends it) read into the
 * request DTO's members for the binder: `<GetFlatRequest xmlns="http://schemas.servicestack.net/types"><CompanyId>1
 * </CompanyId><Locations><d2p1:int>1</d2p1:int></Locations></GetFlatRequest>` → `{ CompanyId: '1', Locations: ['1'] }`.
 * Values stay text (the binder reads them as it reads query values; xs:dateTime members keep their DateTimeKind, see
 * xsdDateTimeAsText); a member with `i:nil="true"` is left out.
 * Parsed by fast-xml-parser, which expands no external entity; a DOCTYPE is refused. Entities are XML's: the five
 * named ones and numeric character references (`caf&#233; &#x41;` is `café A`, as a .NET host reads it; `&#0;` is
 * refused), decoded by @nodable/entities, fast-xml-parser's own decoder.
 */
import { EntityDecoder } from '@nodable/entities';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xsdMembers } from '../../generated/xsd-types.ts';

export class XmlBodyError extends Error {
  override readonly name = 'XmlBodyError';
}

type Node = Record<string, unknown>;

/** A parser whose elements at the given depths (root = 1) are always arrays: the items of a list. */
function listParser(arrayDepths: readonly number[]): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    entityDecoder: new EntityDecoder({ numericAllowed: true, ncr: { nullNCR: 'throw' } }),
    jPath: true,
    isArray: (_name, jpath) => typeof jpath === 'string' && arrayDepths.includes(jpath.split('.').length),
  });
}

/** One DTO: the items of a list member (`Root.Member.Item`). */
const dtoParser = listParser([3]);
/** `ArrayOf{Dto}`: its DTOs (`ArrayOf.Dto`) and the items of their list members. */
const dtoListParser = listParser([2, 4]);

function isNil(node: unknown): boolean {
  return typeof node === 'object' && node !== null && (node as Node)['@_nil'] === 'true';
}

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && node !== null && typeof (node as Node)['#text'] === 'string')
    return (node as Node)['#text'] as string;
  return '';
}

const XSD_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(T[\d:.]+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An xs:dateTime as the binder's text, keeping the DateTimeKind DataContractSerializer gave it: `…Z` is Utc
 * (`/Date(ms)/`), a `±hh:mm` zone Local (kept as sent), no zone Unspecified (`yyyyMMdd` of its date). What is not an
 * xs:dateTime is left for the binder to refuse.
 */
function xsdDateTimeAsText(text: string): string {
  const m = XSD_DATE_TIME.exec(text);
  if (!m) return text;
  if (m[5] === 'Z') {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? text : `/Date(${ms})/`;
  }
  return m[5] ? text : `${m[1]}${m[2]}${m[3]}`;
}

/** The document's root element name and content; a DOCTYPE or malformed XML throws. */
function parseDocument(xml: string, parser: XMLParser): [name: string | undefined, content: unknown] {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlBodyError('a DOCTYPE is not allowed');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new XmlBodyError(`${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as Node;
  const rootName = Object.keys(doc).find((k) => k !== '?xml');
  return [rootName, rootName === undefined ? undefined : doc[rootName]];
}

/** A DTO element's members as the binder's text values. */
function membersOf(element: unknown, dtoName: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof element !== 'object' || element === null) return out;
  const members: readonly { name: string; type: string }[] = Object.hasOwn(xsdMembers, dtoName)
    ? xsdMembers[dtoName as keyof typeof xsdMembers]
    : [];
  const dateMembers = new Set(members.filter((m) => m.type === 'xs:dateTime').map((m) => m.name));
  for (const [name, node] of Object.entries(element as Node)) {
    if (name.startsWith('@_') || name === '#text' || isNil(node)) continue;
    const child = node as Node;
    const items =
      typeof child === 'object' && child !== null
        ? Object.entries(child).filter(([k]) => !k.startsWith('@_') && k !== '#text')
        : [];
    out[name] = items.length ? items.flatMap(([, v]) => (Array.isArray(v) ? v : [v]).map(textOf)) : textOf(node);
    if (dateMembers.has(name) && typeof out[name] === 'string') out[name] = xsdDateTimeAsText(out[name] as string);
  }
  return out;
}

export function readXmlDto(xml: string, dtoName: string): Record<string, unknown> {
  const [rootName, root] = parseDocument(xml, dtoParser);
  if (rootName === undefined) return {};
  if (rootName !== dtoName) throw new XmlBodyError(`expected the root element ${dtoName}, got ${rootName}`);
  return membersOf(root, dtoName);
}

/**
 * A batch's body, `<ArrayOf{Dto}>` with one `<{Dto}>` per request as XmlServiceClient's SendAll writes it: each
 * DTO's members as `readXmlDto` reads them; an element of another name is refused.
 */
export function readXmlDtoList(xml: string, dtoName: string): Record<string, unknown>[] {
  const [rootName, root] = parseDocument(xml, dtoListParser);
  if (rootName === undefined) return [];
  if (rootName !== `ArrayOf${dtoName}`)
    throw new XmlBodyError(`expected the root element ArrayOf${dtoName}, got ${rootName}`);
  if (typeof root !== 'object' || root === null) return [];
  const items: Record<string, unknown>[] = [];
  for (const [name, nodes] of Object.entries(root as Node)) {
    if (name.startsWith('@_') || name === '#text') continue;
    if (name !== dtoName) throw new XmlBodyError(`expected ${dtoName} items in ArrayOf${dtoName}, got ${name}`);
    for (const node of nodes as unknown[]) items.push(membersOf(node, dtoName));
  }
  return items;
}
