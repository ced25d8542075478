/**
 * DTOs as ServiceStack's XmlSerializer (DataContractSerializer) wrote them: root element = the DTO type's name in
 * `http://schemas.servicestack.net/types`, members in DataContract (XSD sequence) order, null members as
 * `i:nil="true"`, dates as xs:dateTime, collections as `ArrayOf…` with their items in the schema's namespace
 * (`http://schemas.microsoft.com/2003/10/Serialization/Arrays` for primitives). Member order and types come from
 * generated/xsd-types.ts; which DTO a response is comes from openapi/ (the operation record: WriteContext.dtoType).
 * The document is built with fast-xml-parser's XMLBuilder; its values are escaped as the host escaped them
 * (./xml-escape.ts).
 */
import { legacyWallClock } from '../scalars/dates.ts';
import { XMLBuilder } from 'fast-xml-parser';
import { appError } from '../errors/app-error.ts';
import { escapeXmlAttribute, escapeXmlText } from './xml-escape.ts';
import { readXmlDto, readXmlDtoList } from './xml-read.ts';
import { xsdMembers, xsdTypeNamespaces } from '../../generated/xsd-types.ts';
import { framedList } from './framed-list.ts';
import type { FormatEntry, ListWriter, ReadContext } from './registry.ts';

export const XML_CONTENT_TYPE = 'application/xml';
export const TYPES_NAMESPACE = 'http://schemas.servicestack.net/types';
export const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
const ARRAYS_NAMESPACE = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
/**
 * DataContractSerializer's generated prefix for the arrays namespace, declared on the member element that holds the
 * list: `d<depth>p1`, the element's depth counted from the root (1), as the 4.5.14 host wrote it (`<Filters
 * xmlns:d3p1="…">` in GetFlatResponse's SelectedOptions, `d4p1` one level down in a batch's list).
 */
const arraysPrefix = (depth: number) => `d${depth}p1`;

type ComplexTypeName = keyof typeof xsdMembers;
type XmlNode = Record<string, unknown>;

function isComplex(name: string): name is ComplexTypeName {
  return Object.hasOwn(xsdMembers, name);
}

/** A decimal in xs:decimal lexical form (no exponent). */
function xsdDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`xml: ${value} is not an xs:decimal`);
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/**
 * `/Date(ms[±hhmm])/` (our JSON form) → xs:dateTime as DataContractSerializer wrote a DateTime of that kind:
 * `2024-01-01T00:00:00Z` (Utc), `…+00:00` (Local; in the offset a date was sent with, `…-05:00`),
 * `2024-01-01T00:00:00` (Unspecified); milliseconds as `.123`.
 */
function xsdDateTime(value: unknown): string {
  const shown = typeof value === 'string' ? legacyWallClock(value) : undefined;
  if (shown) return shown.wallClock.replace(/\.000$/, '') + shown.zone;
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new Error(`xml: ${String(value)} is not a date`);
  return date.toISOString().replace(/(\.000)?Z$/, 'Z');
}

/** A GUID as DataContractSerializer wrote System.Guid: hyphenated 8-4-4-4-12, lowercase (JSON has the 32-hex form). */
function xsdGuid(value: unknown): string {
  const hex = typeof value === 'string' ? value.replace(/-/g, '').toLowerCase() : '';
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`xml: ${String(value)} is not a GUID`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function scalar(type: string, value: unknown): string {
  switch (type) {
    case 'xs:string':
      return String(value);
    case 'xs:int':
    case 'xs:long':
      if (!Number.isInteger(value)) throw new Error(`xml: ${String(value)} is not an integer`);
      return String(value);
    case 'xs:decimal':
    case 'xs:double':
      return xsdDecimal(Number(value));
    case 'xs:boolean':
      return value ? 'true' : 'false';
    case 'xs:dateTime':
      return xsdDateTime(value);
    case 'ser:guid':
      return xsdGuid(value);
    default:
      throw new Error(`xml: no writer for ${type}`);
  }
}

/**
 * A nil element: `i:nil="true"`, after the arrays namespace's declaration when its type is a list in that namespace,
 * as DataContractSerializer declared it whatever the value (`<Filters xmlns:d3p1="…" i:nil="true" />`).
 */
function nil(type: string, depth: number): XmlNode {
  const local = type.split(':')[1] ?? '';
  if (!isComplex(local) || xsdTypeNamespaces[local] !== ARRAYS_NAMESPACE) return { '@_i:nil': 'true' };
  return { [`@_xmlns:${arraysPrefix(depth)}`]: ARRAYS_NAMESPACE, '@_i:nil': 'true' };
}

/**
 * The content of an element of schema type `type` (a normalised QName such as `tns:ReportModel`) at `depth` (the
 * root is 1).
 */
function content(type: string, value: unknown, depth: number): XmlNode | string {
  const [prefix, local] = type.split(':') as [string, string];
  if (prefix === 'xs' || prefix === 'ser') return scalar(type, value);
  if (!isComplex(local)) throw new Error(`xml: unknown schema type ${type}`);
  const members = xsdMembers[local];
  const item = members[0];
  // ArrayOf…: one element per item, named by the schema; array items live in the type's own namespace.
  if (item && item.maxOccurs === 'unbounded') {
    if (!Array.isArray(value)) throw new Error(`xml: ${type} needs an array`);
    const inArrays = xsdTypeNamespaces[local] === ARRAYS_NAMESPACE;
    const name = inArrays ? `${arraysPrefix(depth)}:${item.name}` : item.name;
    const node: XmlNode = {};
    if (inArrays) node[`@_xmlns:${arraysPrefix(depth)}`] = ARRAYS_NAMESPACE;
    if (value.length) node[name] = value.map((v) => element(item.type, v, item.nillable, depth + 1));
    return node;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`xml: ${type} needs an object`);
  const record = value as Record<string, unknown>;
  const node: XmlNode = {};
  for (const member of members) {
    const v = record[member.name];
    if (v === undefined || v === null) {
      if (member.nillable) node[member.name] = nil(member.type, depth + 1);
      continue;
    }
    node[member.name] = element(member.type, v, member.nillable, depth + 1);
  }
  return node;
}

function element(type: string, value: unknown, nillable: boolean, depth: number): XmlNode | string {
  if (value === null || value === undefined) {
    if (!nillable) throw new Error(`xml: ${type} is not nillable`);
    return nil(type, depth);
  }
  return content(type, value, depth);
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressBooleanAttributes: false,
  suppressEmptyNode: true,
  processEntities: false,
  tagValueProcessor: escapeXmlText,
  attributeValueProcessor: escapeXmlAttribute,
});

/** `dto` as a DataContract XML document whose root is `typeName` (a complex type of wsdl/types.xsd). */
export function toDataContractXml(typeName: string, dto: unknown): string {
  if (!isComplex(typeName) || xsdTypeNamespaces[typeName] !== TYPES_NAMESPACE)
    throw new Error(`xml: ${typeName} is not a DTO of ${TYPES_NAMESPACE}`);
  const body = content(`tns:${typeName}`, dto, 1) as XmlNode;
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' },
    [typeName]: { '@_xmlns:i': XSI_NAMESPACE, '@_xmlns': TYPES_NAMESPACE, ...body },
  }) as string;
}

/** The list's root element around a placeholder, split there: the frame of its items' elements. */
const ITEMS_PLACEHOLDER = 'ITEMS';

function checkedListType(typeName: string): void {
  if (!isComplex(typeName) || xsdTypeNamespaces[typeName] !== TYPES_NAMESPACE)
    throw new Error(`xml: ${typeName} is not a DTO of ${TYPES_NAMESPACE}`);
}

/**
 * A non-empty list of `typeName` DTOs (a batch's answer) as DataContractSerializer wrote a `List<T>`:
 * `<ArrayOfEchoResponse>` in the types namespace around one `<EchoResponse>` per item, each written alone at its depth
 * in the list (2), so that the list is measured and written from the same texts.
 */
function dataContractXmlListWriter(typeName: string): ListWriter {
  checkedListType(typeName);
  const root = builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' },
    [`ArrayOf${typeName}`]: { '@_xmlns:i': XSI_NAMESPACE, '@_xmlns': TYPES_NAMESPACE, '#text': ITEMS_PLACEHOLDER },
  }) as string;
  const at = root.indexOf(ITEMS_PLACEHOLDER);
  return framedList(
    { open: root.slice(0, at), separator: '', close: root.slice(at + ITEMS_PLACEHOLDER.length) },
    (item) => builder.build({ [typeName]: content(`tns:${typeName}`, item, 2) }) as string,
  );
}

/**
 * A list of `typeName` DTOs (dataContractXmlListWriter); an empty list as 4.5.14 answered an empty batch,
 * `<ArrayOfanyType>` in the arrays namespace (its List<object>).
 */
export function toDataContractXmlList(typeName: string, items: readonly unknown[]): string {
  if (items.length) {
    const writer = dataContractXmlListWriter(typeName);
    return writer.write(items.map(writer.item)) as string;
  }
  checkedListType(typeName);
  const node: XmlNode = { '@_xmlns:i': XSI_NAMESPACE, '@_xmlns': ARRAYS_NAMESPACE };
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' }, ArrayOfanyType: node }) as string;
}

/** A request body the XML reader refused, named as the 400 names it. */
function unreadable(ctx: ReadContext, error: unknown): Error {
  return appError('BodyUnreadableAs', {
    mediaType: 'application/xml',
    dto: ctx.operation.requestDto,
    reason: (error as Error).message,
  });
}

export const xmlFormat: FormatEntry = {
  format: 'xml',
  mediaType: 'application/xml',
  contentType: XML_CONTENT_TYPE,
  preferred: true,
  predefinedRoutes: true,
  writeDto: (dto, ctx) =>
    ctx.list && Array.isArray(dto) ? toDataContractXmlList(ctx.dtoType, dto) : toDataContractXml(ctx.dtoType, dto),
  listWriter: (_first, ctx) => dataContractXmlListWriter(ctx.dtoType),
  // `/xml/reply/{Op}` bodies, as ServiceStack's XmlServiceClient sends them (src/formats/xml-read.ts).
  read: (body, ctx) => {
    try {
      return readXmlDto(body, ctx.operation.requestDto);
    } catch (error) {
      throw unreadable(ctx, error);
    }
  },
  // `/xml/reply/{Op}[]` bodies: `<ArrayOfEchoRequest><EchoRequest>…</EchoRequest>…</ArrayOfEchoRequest>` (SendAll).
  readList: (body, ctx) => {
    try {
      return readXmlDtoList(body, ctx.operation.requestDto);
    } catch (error) {
      throw unreadable(ctx, error);
    }
  },
};
