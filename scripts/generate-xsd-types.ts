/**
 * generated/xsd-types.ts from the hand-written schemas in wsdl/ (the SOAP contract):
 *  - one TypeScript interface per xs:complexType (`XsdGetFlatResponse`, ...) and one type alias per xs:simpleType;
 *  - `xsdComplexTypes`: each complex type's members in sequence order with their type as a normalised QName
 *    (`xs:string`, `tns:ReportModel`, `arr:ArrayOfstring`, `ser:guid`), for test/contract to compare with the OpenAPI;
 *  - `xsdMembers`: the same members with minOccurs / maxOccurs / nillable.
 * The schemas are read with saxes, a strict namespace-aware XML parser, so QNames such as `q1:ArrayOfstring` resolve
 * through the in-scope xmlns declarations exactly as a schema processor resolves them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { GENERATED_HEADER, type Generator } from './generator.ts';

export const XSD_FILES = ['ms-serialization.xsd', 'ms-arrays.xsd', 'types.xsd'] as const;

const XS = 'http://www.w3.org/2001/XMLSchema';
/** Namespace → the prefix used in generated descriptions. */
export const XSD_PREFIXES: Record<string, string> = {
  [XS]: 'xs',
  'http://schemas.microsoft.com/2003/10/Serialization/': 'ser',
  'http://schemas.microsoft.com/2003/10/Serialization/Arrays': 'arr',
  'http://schemas.servicestack.net/types': 'tns',
};

export interface XsdMember {
  name: string;
  type: string;
  minOccurs: number;
  /** 'unbounded' or a count. */
  maxOccurs: number | 'unbounded';
  nillable: boolean;
}
export interface XsdComplexType {
  name: string;
  namespace: string;
  members: XsdMember[];
}
export interface XsdSimpleType {
  name: string;
  namespace: string;
  base: string;
  patterns: string[];
  minInclusive?: string;
  maxInclusive?: string;
}
export interface XsdGlobalElement {
  name: string;
  namespace: string;
  type: string;
  nillable: boolean;
}
export interface ParsedSchemas {
  complexTypes: XsdComplexType[];
  simpleTypes: XsdSimpleType[];
  elements: XsdGlobalElement[];
}

function attr(tag: SaxesTagNS, name: string): string | undefined {
  const a = tag.attributes[name];
  if (a === undefined) return undefined;
  return typeof a === 'string' ? a : a.value;
}

/**
 * Parses one schema document. Only the constructs the DataContract exporter emits are accepted; anything else fails.
 */
export function parseSchema(xml: string, source: string): ParsedSchemas {
  const parser = new SaxesParser({ xmlns: true, position: true, fileName: source });
  const out: ParsedSchemas = { complexTypes: [], simpleTypes: [], elements: [] };
  const stack: string[] = [];
  let targetNamespace = '';
  let complexType: XsdComplexType | undefined;
  let simpleType: XsdSimpleType | undefined;

  const qname = (tag: SaxesTagNS, value: string): string => {
    const colon = value.indexOf(':');
    const prefix = colon < 0 ? '' : value.slice(0, colon);
    const local = colon < 0 ? value : value.slice(colon + 1);
    const uri = parser.resolve(prefix) ?? tag.ns[prefix];
    if (uri === undefined) throw new Error(`${source}: unbound prefix in QName '${value}'`);
    const short = XSD_PREFIXES[uri];
    if (!short) throw new Error(`${source}: QName '${value}' is in namespace ${uri}, which has no generated prefix`);
    return `${short}:${local}`;
  };

  parser.on('doctype', () => {
    throw new Error(`${source}: DOCTYPE not allowed`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (tag.uri !== XS) throw new Error(`${source}: unexpected element {${tag.uri}}${tag.local}`);
    const parent = stack[stack.length - 1];
    stack.push(tag.local);
    const where = stack.join('/');
    switch (where) {
      case 'schema':
        targetNamespace = attr(tag, 'targetNamespace') ?? '';
        return;
      case 'schema/import':
      case 'schema/attribute':
        return;
      case 'schema/element': {
        const type = attr(tag, 'type');
        const name = attr(tag, 'name');
        if (!type || !name) throw new Error(`${source}: global element without name/type`);
        out.elements.push({
          name,
          namespace: targetNamespace,
          type: qname(tag, type),
          nillable: attr(tag, 'nillable') === 'true',
        });
        return;
      }
      case 'schema/complexType':
        complexType = { name: attr(tag, 'name') ?? '', namespace: targetNamespace, members: [] };
        out.complexTypes.push(complexType);
        return;
      case 'schema/complexType/sequence':
        return;
      case 'schema/complexType/sequence/element': {
        const name = attr(tag, 'name');
        const type = attr(tag, 'type');
        if (!complexType || !name || !type) throw new Error(`${source}: member without name/type`);
        const max = attr(tag, 'maxOccurs') ?? '1';
        complexType.members.push({
          name,
          type: qname(tag, type),
          minOccurs: Number(attr(tag, 'minOccurs') ?? '1'),
          maxOccurs: max === 'unbounded' ? 'unbounded' : Number(max),
          nillable: attr(tag, 'nillable') === 'true',
        });
        return;
      }
      case 'schema/simpleType':
        simpleType = { name: attr(tag, 'name') ?? '', namespace: targetNamespace, base: '', patterns: [] };
        out.simpleTypes.push(simpleType);
        return;
      case 'schema/simpleType/restriction':
        if (simpleType) simpleType.base = qname(tag, attr(tag, 'base') ?? '');
        return;
      case 'schema/simpleType/restriction/pattern':
        simpleType?.patterns.push(attr(tag, 'value') ?? '');
        return;
      case 'schema/simpleType/restriction/minInclusive':
        if (simpleType) simpleType.minInclusive = attr(tag, 'value');
        return;
      case 'schema/simpleType/restriction/maxInclusive':
        if (simpleType) simpleType.maxInclusive = attr(tag, 'value');
        return;
      default:
        throw new Error(`${source}: unsupported schema construct xs:${tag.local} under xs:${parent ?? '(root)'}`);
    }
  });
  parser.on('closetag', () => {
    const closed = stack.pop();
    if (closed === 'complexType') complexType = undefined;
    if (closed === 'simpleType') simpleType = undefined;
  });
  parser.write(xml).close();
  return out;
}

export async function parseSchemas(root: string): Promise<ParsedSchemas> {
  const all: ParsedSchemas = { complexTypes: [], simpleTypes: [], elements: [] };
  for (const file of XSD_FILES) {
    const parsed = parseSchema(await readFile(path.join(root, 'wsdl', file), 'utf8'), `wsdl/${file}`);
    all.complexTypes.push(...parsed.complexTypes);
    all.simpleTypes.push(...parsed.simpleTypes);
    all.elements.push(...parsed.elements);
  }
  const seen = new Set<string>();
  for (const { name } of [...all.complexTypes, ...all.simpleTypes]) {
    if (seen.has(name)) throw new Error(`type name ${name} is defined twice across the schemas`);
    seen.add(name);
  }
  return all;
}

const TS_PRIMITIVES: Record<string, string> = {
  'xs:string': 'string',
  'xs:anyURI': 'string',
  'xs:base64Binary': 'string',
  'xs:QName': 'string',
  'xs:dateTime': 'string',
  'xs:duration': 'string',
  'xs:boolean': 'boolean',
  'xs:int': 'number',
  'xs:long': 'number',
  'xs:short': 'number',
  'xs:byte': 'number',
  'xs:unsignedInt': 'number',
  'xs:unsignedLong': 'number',
  'xs:unsignedShort': 'number',
  'xs:unsignedByte': 'number',
  'xs:decimal': 'number',
  'xs:double': 'number',
  'xs:float': 'number',
  'xs:anyType': 'unknown',
};

function tsName(name: string): string {
  return `Xsd${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

function tsType(qname: string, parsed: ParsedSchemas): string {
  const primitive = TS_PRIMITIVES[qname];
  if (primitive) return primitive;
  const local = qname.slice(qname.indexOf(':') + 1);
  if (parsed.complexTypes.some((t) => t.name === local) || parsed.simpleTypes.some((t) => t.name === local))
    return tsName(local);
  throw new Error(`no TypeScript type for ${qname}`);
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : quote(s));

export function renderXsdTypes(parsed: ParsedSchemas): string {
  const lines: string[] = [];
  lines.push(`${GENERATED_HEADER}// Source: ${XSD_FILES.map((f) => `wsdl/${f}`).join(', ')}`, '');

  for (const simple of parsed.simpleTypes) {
    lines.push(
      `/** {${simple.namespace}}${simple.name}: restriction ` +
        `of ${simple.base}${simple.patterns.map((p) => `, pattern ${p}`).join('')} */`,
    );
    lines.push(`export type ${tsName(simple.name)} = ${tsType(simple.base, parsed)};`, '');
  }
  for (const complex of parsed.complexTypes) {
    lines.push(`/** {${complex.namespace}}${complex.name} */`);
    lines.push(`export interface ${tsName(complex.name)} {`);
    for (const m of complex.members) {
      let t = tsType(m.type, parsed);
      if (m.nillable) t = `${t} | null`;
      if (m.maxOccurs === 'unbounded' || m.maxOccurs > 1) t = m.nillable ? `(${t})[]` : `${t}[]`;
      lines.push(`  ${key(m.name)}${m.minOccurs === 0 ? '?' : ''}: ${t};`);
    }
    lines.push('}', '');
  }

  lines.push('/** Members of each complex type, in sequence order, with their schema type as a normalised QName. */');
  lines.push('export const xsdComplexTypes = {');
  for (const complex of parsed.complexTypes) {
    lines.push(`  ${key(complex.name)}: {`);
    for (const m of complex.members) lines.push(`    ${key(m.name)}: ${quote(m.type)},`);
    lines.push('  },');
  }
  lines.push('} as const;', '');

  lines.push('/** Occurrence and nillability of each member. */');
  lines.push('export const xsdMembers = {');
  for (const complex of parsed.complexTypes) {
    lines.push(`  ${key(complex.name)}: [`);
    for (const m of complex.members) {
      const max = m.maxOccurs === 'unbounded' ? quote('unbounded') : String(m.maxOccurs);
      lines.push(
        `    { name: ${quote(m.name)}, type: ${quote(m.type)}, minOccurs: ${m.minOccurs}, maxOccurs: ${max}, ` +
          `nillable: ${m.nillable} },`,
      );
    }
    lines.push('  ],');
  }
  lines.push('} as const;', '');

  lines.push('/** Namespace of each named type. */');
  lines.push('export const xsdTypeNamespaces = {');
  for (const t of [...parsed.simpleTypes, ...parsed.complexTypes])
    lines.push(`  ${key(t.name)}: ${quote(t.namespace)},`);
  lines.push('} as const;', '');

  lines.push("/** Restricted simple types (the serialization schema's char, duration, guid). */");
  lines.push('export const xsdSimpleTypes = {');
  for (const s of parsed.simpleTypes) {
    const extra = [
      s.minInclusive !== undefined ? `minInclusive: ${quote(s.minInclusive)}` : '',
      s.maxInclusive !== undefined ? `maxInclusive: ${quote(s.maxInclusive)}` : '',
    ].filter(Boolean);
    lines.push(
      `  ${key(s.name)}: { base: ${quote(s.base)}, patterns: ` +
        `[${s.patterns.map(quote).join(', ')}]${extra.length ? `, ${extra.join(', ')}` : ''} },`,
    );
  }
  lines.push('} as const;', '');

  lines.push('/** Global elements: name → type (all nillable, as the exporter writes them, unless marked). */');
  lines.push('export const xsdElements = {');
  for (const e of parsed.elements) lines.push(`  ${key(e.name)}: { type: ${quote(e.type)}, nillable: ${e.nillable} },`);
  lines.push('} as const;', '');
  return lines.join('\n');
}

export const xsdTypes: Generator = {
  output: 'xsd-types.ts',
  async render(root) {
    return renderXsdTypes(await parseSchemas(root));
  },
};
