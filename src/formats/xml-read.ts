/**
 * A DataContract XML request body (`/xml/reply/{Op}`, as ServiceStack's XmlServiceClient sends it) read into the
 * request DTO's members for the binder: `<GetFlatRequest xmlns="http://schemas.servicestack.net/types"><CompanyId>1
 * </CompanyId><Locations><d2p1:int>1</d2p1:int></Locations></GetFlatRequest>` → `{ CompanyId: '1', Locations: ['1'] }`.
 * Values stay text (the binder reads them as it reads query values); a member with `i:nil="true"` is left out.
 * Parsed by fast-xml-parser, which expands no external entity; a DOCTYPE is refused.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export class XmlBodyError extends Error {
  override readonly name = 'XmlBodyError';
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  jPath: true,
  isArray: (_name, jpath) => typeof jpath === 'string' && jpath.split('.').length === 3, // items of a list member
});

function isNil(node: unknown): boolean {
  return typeof node === 'object' && node !== null && (node as Node)['@_nil'] === 'true';
}

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && node !== null && typeof (node as Node)['#text'] === 'string') return (node as Node)['#text'] as string;
  return '';
}

export function readXmlDto(xml: string, dtoName: string): Record<string, unknown> {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlBodyError('a DOCTYPE is not allowed');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new XmlBodyError(`${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as Node;
  const rootName = Object.keys(doc).find((k) => k !== '?xml');
  if (rootName === undefined) return {};
  if (rootName !== dtoName) throw new XmlBodyError(`expected the root element ${dtoName}, got ${rootName}`);
  const root = doc[rootName];
  const out: Record<string, unknown> = {};
  if (typeof root !== 'object' || root === null) return out;
  for (const [name, node] of Object.entries(root as Node)) {
    if (name.startsWith('@_') || name === '#text' || isNil(node)) continue;
    const element = node as Node;
    const items = typeof element === 'object' && element !== null
      ? Object.entries(element).filter(([k]) => !k.startsWith('@_') && k !== '#text')
      : [];
    out[name] = items.length ? items.flatMap(([, v]) => (Array.isArray(v) ? v : [v]).map(textOf)) : textOf(node);
  }
  return out;
}
