/**
 * generated/native-types.ts: the "Add ServiceStack Reference" sources the host serves at /types/typescript and
 * /types/csharp, rendered at build time from the contract, in the form ServiceStack's NativeTypes generators
 * (TypeScriptGenerator.cs, CSharpGenerator.cs) write them:
 *  - operations, their REST routes and verbs, and each request DTO's response type come from openapi/
 *    (the operation records: `x-request-dto`, the 200 response's DTO; `/json/reply/` routes are ServiceStack's
 * pre-defined routes and
 *    carry no [Route]);
 *  - each DTO's members and their .NET types come from wsdl/types.xsd (the DataContract the host exported), in
 *    declaration order as openapi/ lists the JSON properties.
 * The header's `Date` and `BaseUrl` depend on the request: they stay `{{Date}}` / `{{BaseUrl}}` placeholders.
 */
import path from 'node:path';
import { readOpenApiContract } from '../src/contract/openapi-document.ts';
import { readOperations } from '../src/contract/operations.ts';
import { GENERATED_HEADER, type Generator } from './generator.ts';
import { parseSchemas, type XsdComplexType } from './generate-xsd-types.ts';

/** The ServiceStack version the header names (the original host's major line). */
export const NATIVE_TYPES_VERSION = '5.14';
/** The CLR namespace of the DTOs in the C# reference. */
export const CLR_NAMESPACE = 'ReportingService.ServiceModel';
const TYPES_NAMESPACE = 'http://schemas.servicestack.net/types';
/** Types that ship with ServiceStack (ServiceStack.Interfaces): C# clients get them from `using ServiceStack;`. */
const SERVICESTACK_TYPES = new Set(['ResponseStatus', 'ResponseError', 'ErrorResponse']);

interface Property {
  name: string;
  /** Normalised XSD QName, e.g. `xs:int`, `arr:ArrayOfstring`, `tns:ReportModel`. */
  xsdType: string;
}
interface DtoType {
  name: string;
  properties: Property[];
  /** Set for request DTOs. */
  operation?: { response: string; method: string; routes: { path: string; verbs: string }[] };
}
export interface NativeTypesModel {
  types: DtoType[];
}

export async function nativeTypesModel(root: string): Promise<NativeTypesModel> {
  const contract = await readOpenApiContract(path.join(root, 'openapi', 'reporting-service.yaml'));
  const schemas = contract.document.components?.schemas ?? {};
  const xsd = await parseSchemas(root);
  const complex = new Map(xsd.complexTypes.filter((t) => t.namespace === TYPES_NAMESPACE).map((t) => [t.name, t]));

  const operations = new Map<string, NonNullable<DtoType['operation']>>();
  for (const { requestDto: dto, method, template, predefined, batch, responses } of readOperations(contract).all) {
    // A batch route (`/json/reply/{Op}[]`) is implicit in ServiceStack: no native type of its own.
    if (batch) continue;
    // A resource route whose request is no DTO of the contract (the report link, GET …/Flat/Reports/{Token}) has no
    // native type.
    if (!schemas[dto]) continue;
    const response = responses.get('200')?.dtoType;
    if (!response) throw new Error(`openapi: ${method} ${template} has no 200 DTO`);
    const entry = operations.get(dto) ?? { response, method, routes: [] };
    if (entry.response !== response) throw new Error(`openapi: ${dto} answers two response types`);
    operations.set(dto, entry);
    if (predefined) continue;
    const route = entry.routes.find((r) => r.path === template);
    if (route) route.verbs += `,${method}`;
    else entry.routes.push({ path: template, verbs: method });
    entry.method = entry.routes[0]!.verbs.split(',')[0]!;
  }

  const types = new Map<string, DtoType>();
  const visit = (name: string): void => {
    if (types.has(name)) return;
    const xsdType = complex.get(name);
    const schema = schemas[name];
    if (!xsdType || !schema?.properties)
      throw new Error(`contract: ${name} must be a DTO in both openapi/ and wsdl/types.xsd`);
    const properties = declaredProperties(name, Object.keys(schema.properties), xsdType);
    // Dependencies first, as ServiceStack orders types.
    for (const p of properties) {
      const element = elementType(p.xsdType, complex);
      if (element) visit(element);
    }
    types.set(name, { name, properties, operation: operations.get(name) });
  };
  const requests = [...operations.keys()];
  for (const op of operations.values()) visit(op.response);
  for (const dto of requests) visit(dto);
  // Request DTOs last, responses before them, as the host's metadata lists operations.
  const ordered = [...types.values()].sort((a, b) => Number(!!a.operation) - Number(!!b.operation));
  return { types: ordered };
}

function declaredProperties(name: string, jsonOrder: string[], xsdType: XsdComplexType): Property[] {
  const members = new Map(xsdType.members.map((m) => [m.name, m.type]));
  if (jsonOrder.length !== members.size || jsonOrder.some((p) => !members.has(p))) {
    throw new Error(`contract: ${name} has different members in openapi/ and wsdl/types.xsd`);
  }
  return jsonOrder.map((p) => ({ name: p, xsdType: members.get(p)! }));
}

/** The DTO a member refers to (through an ArrayOf… wrapper), if any. */
function elementType(qname: string, complex: Map<string, XsdComplexType>): string | undefined {
  const [prefix, local] = qname.split(':') as [string, string];
  if (prefix !== 'tns') return undefined;
  const type = complex.get(local);
  const item = type?.members[0];
  if (type && item && item.maxOccurs === 'unbounded') return elementType(item.type, complex);
  return local;
}

const XS_TS: Record<string, string> = {
  string: 'string',
  dateTime: 'string',
  guid: 'string',
  int: 'number',
  long: 'number',
  decimal: 'number',
  double: 'number',
  boolean: 'boolean',
};
const XS_CS: Record<string, string> = {
  string: 'string',
  dateTime: 'DateTime',
  guid: 'Guid',
  int: 'int',
  long: 'long',
  decimal: 'decimal',
  double: 'double',
  boolean: 'bool',
};

/** `arr:ArrayOfint` → ['xs', 'int']; `tns:ArrayOfReportRow` → ['tns', 'ReportRow']. */
function arrayItem(qname: string): [string, string] | undefined {
  const [prefix, local] = qname.split(':') as [string, string];
  const m = /^ArrayOf(.+)$/.exec(local);
  if (!m) return undefined;
  return prefix === 'arr' ? ['xs', m[1]!] : [prefix, m[1]!];
}

function tsType(qname: string): string {
  const item = arrayItem(qname);
  if (item) return `${tsType(item.join(':'))}[]`;
  const [prefix, local] = qname.split(':') as [string, string];
  if (prefix === 'xs' || prefix === 'ser') {
    const t = XS_TS[local];
    if (!t) throw new Error(`native types: no TypeScript type for ${qname}`);
    return t;
  }
  return local;
}

function csType(qname: string): string {
  const item = arrayItem(qname);
  if (item) return `List<${csType(item.join(':'))}>`;
  const [prefix, local] = qname.split(':') as [string, string];
  if (prefix === 'xs' || prefix === 'ser') {
    const t = XS_CS[local];
    if (!t) throw new Error(`native types: no C# type for ${qname}`);
    return t;
  }
  return local;
}

const TIP = 'Tip: To override a DTO option, remove "//" prefix before updating';

export function renderTypeScript({ types }: NativeTypesModel): string {
  const out: string[] = [
    '/* Options:',
    'Date: {{Date}}',
    `Version: ${NATIVE_TYPES_VERSION}`,
    TIP,
    'BaseUrl: {{BaseUrl}}',
    '',
    '//GlobalNamespace: ',
    '//MakePropertiesOptional: False',
    '//AddServiceStackTypes: True',
    '//AddResponseStatus: False',
    '//AddImplicitVersion: ',
    '//AddDescriptionAsComments: True',
    '//IncludeTypes: ',
    '//ExcludeTypes: ',
    '//DefaultImports: ',
    '*/',
    '',
    '',
    'export interface IReturn<T>',
    '{',
    '    createResponse(): T;',
    '}',
    '',
    'export interface IReturnVoid',
    '{',
    '    createResponse(): void;',
    '}',
  ];
  for (const type of types) {
    out.push('');
    const framework = SERVICESTACK_TYPES.has(type.name);
    for (const route of type.operation?.routes ?? [])
      out.push(`// @Route(${JSON.stringify(route.path)}, ${JSON.stringify(route.verbs)})`);
    out.push(framework ? '// @DataContract' : `// @DataContract(Namespace=${JSON.stringify(TYPES_NAMESPACE)})`);
    out.push(
      `export class ${type.name}${type.operation ? ` implements IReturn<${type.operation.response}>` : ''}`,
      '{',
    );
    type.properties.forEach((p, i) => {
      if (i > 0) out.push('');
      out.push(framework ? `    // @DataMember(Order=${i + 1})` : '    // @DataMember');
      out.push(`    public ${p.name}?: ${tsType(p.xsdType)};`);
    });
    if (type.properties.length) out.push('');
    out.push(`    public constructor(init?: Partial<${type.name}>) { (Object as any).assign(this, init); }`);
    if (type.operation) {
      out.push(`    public getTypeName() { return '${type.name}'; }`);
      out.push(`    public getMethod() { return '${type.operation.method}'; }`);
      out.push(`    public createResponse() { return new ${type.operation.response}(); }`);
    }
    out.push('}');
  }
  out.push('', '');
  return out.join('\n');
}

export function renderCSharp({ types }: NativeTypesModel): string {
  const out: string[] = [
    '/* Options:',
    'Date: {{Date}}',
    `Version: ${NATIVE_TYPES_VERSION}`,
    TIP,
    'BaseUrl: {{BaseUrl}}',
    '',
    '//GlobalNamespace: ',
    '//MakePartial: True',
    '//MakeVirtual: True',
    '//MakeInternal: False',
    '//MakeDataContractsExtensible: False',
    '//AddNullableAnnotations: False',
    '//AddReturnMarker: True',
    '//AddDescriptionAsComments: True',
    '//AddDataContractAttributes: False',
    '//AddIndexesToDataMembers: False',
    '//AddGeneratedCodeAttributes: False',
    '//AddResponseStatus: False',
    '//AddImplicitVersion: ',
    '//InitializeCollections: False',
    '//ExportValueTypes: False',
    '//IncludeTypes: ',
    '//ExcludeTypes: ',
    '//AddNamespaces: ',
    `//AddDefaultXmlNamespace: ${TYPES_NAMESPACE}`,
    '*/',
    '',
    ...[
      'System',
      'System.IO',
      'System.Collections',
      'System.Collections.Generic',
      'System.Runtime.Serialization',
      'ServiceStack',
      'ServiceStack.DataAnnotations',
      CLR_NAMESPACE,
    ].map((ns) => `using ${ns};`),
    '',
    `namespace ${CLR_NAMESPACE}`,
    '{',
  ];
  const own = types
    .filter((t) => !SERVICESTACK_TYPES.has(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  own.forEach((type, index) => {
    if (index > 0) out.push('');
    for (const route of type.operation?.routes ?? [])
      out.push(`    [Route(${JSON.stringify(route.path)}, ${JSON.stringify(route.verbs)})]`);
    out.push(`    [DataContract(Namespace=${JSON.stringify(TYPES_NAMESPACE)})]`);
    out.push(`    public partial class ${type.name}`);
    if (type.operation) out.push(`        : IReturn<${type.operation.response}>`);
    out.push('    {');
    type.properties.forEach((p, i) => {
      if (i > 0) out.push('');
      out.push('        [DataMember]');
      out.push(`        public virtual ${csType(p.xsdType)} ${p.name} { get; set; }`);
    });
    out.push('    }');
  });
  out.push('}', '', '');
  return out.join('\n');
}

export const nativeTypes: Generator = {
  output: 'native-types.ts',
  async render(root) {
    const model = await nativeTypesModel(root);
    return (
      `${GENERATED_HEADER}// Source: openapi/reporting-service.yaml, wsdl/types.xsd ` +
      `(scripts/generate-native-types.ts)\n\n` +
      '/** What GET /types/typescript serves; `{{Date}}` and `{{BaseUrl}}` are filled in per request. */\n' +
      `export const typescriptNativeTypes = ${JSON.stringify(renderTypeScript(model))};\n\n` +
      '/** What GET /types/csharp serves; `{{Date}}` and `{{BaseUrl}}` are filled in per request. */\n' +
      `export const csharpNativeTypes = ${JSON.stringify(renderCSharp(model))};\n`
    );
  },
};
