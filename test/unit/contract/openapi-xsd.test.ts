/**
 * The REST contract (openapi/reporting-service.yaml) and the SOAP contract (wsdl/types.xsd, through
 * generated/xsd-types.ts) must describe the same DTOs: same types, same field names, compatible field types.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { xsdComplexTypes, xsdElements, xsdMembers, xsdTypeNamespaces } from '../../../generated/xsd-types.ts';

const TYPES_NS = 'http://schemas.servicestack.net/types';

interface OpenApiSchema {
  type?: string;
  format?: string;
  $ref?: string;
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  enum?: unknown[];
}
type Schemas = Record<string, OpenApiSchema>;
type XsdTypes = Record<string, Record<string, string>>;

/** Named scalar schemas whose XSD form is not their JSON form (the legacy JSON date is an xs:dateTime). */
const SCALAR_OVERRIDES: Record<string, string> = {
  LegacyDate: 'xs:dateTime',
  LegacyDateInput: 'xs:dateTime',
  // A GUID is the original's System.Guid: ser:guid in XML (hyphenated), 32 hex digits in JSON.
  Guid: 'ser:guid',
  GuidInput: 'ser:guid',
};
/** DataContract [DataMember(Order = n)] types of ServiceStack; all others are in ordinal alphabetical order. */
const ORDERED_BY_DATAMEMBER = new Set(['ResponseStatus', 'ResponseError', 'ErrorResponse']);

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
const isObjectSchema = (s: OpenApiSchema | undefined) => !!s && (s.type === 'object' || !!s.properties);

/** The XSD type (normalised QName) an OpenAPI property must have. */
export function expectedXsdType(schema: OpenApiSchema, schemas: Schemas): string {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const target = schemas[name];
    if (!target) throw new Error(`dangling $ref ${schema.$ref}`);
    if (isObjectSchema(target)) return `tns:${name}`;
    return SCALAR_OVERRIDES[name] ?? expectedXsdType(target, schemas);
  }
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time' ? 'xs:dateTime' : 'xs:string';
    case 'integer':
      return schema.format === 'int64' ? 'xs:long' : 'xs:int';
    case 'boolean':
      return 'xs:boolean';
    case 'number':
      return schema.format === 'double' ? 'xs:double' : schema.format === 'float' ? 'xs:float' : 'xs:decimal';
    case 'array': {
      if (!schema.items) throw new Error('array without items');
      const item = expectedXsdType(schema.items, schemas);
      const [prefix, local] = item.split(':');
      // DataContract: lists of primitives are ArrayOf<xs name> in the Arrays namespace; lists of DTOs ArrayOf<Dto> in
      // tns.
      return prefix === 'tns' ? `tns:ArrayOf${local}` : `arr:ArrayOf${local}`;
    }
    default:
      throw new Error(`no XSD mapping for OpenAPI schema ${JSON.stringify(schema)}`);
  }
}

/** Every difference between the OpenAPI DTO schemas and the XSD DTO complex types; empty when they agree. */
export function compareContracts(schemas: Schemas, xsd: XsdTypes): string[] {
  const problems: string[] = [];
  const openapiDtos = Object.keys(schemas).filter((n) => isObjectSchema(schemas[n]));
  const xsdDtos = Object.keys(xsd).filter(
    (n) => !n.startsWith('ArrayOf') && (xsdTypeNamespaces as Record<string, string>)[n] === TYPES_NS,
  );

  for (const name of openapiDtos)
    if (!xsd[name]) problems.push(`${name}: in the OpenAPI document, no complexType in types.xsd`);
  for (const name of xsdDtos)
    if (!openapiDtos.includes(name))
      problems.push(`${name}: complexType in types.xsd, no object schema in the OpenAPI document`);

  for (const name of openapiDtos) {
    const members = xsd[name];
    if (!members) continue;
    const properties = schemas[name]?.properties ?? {};
    for (const [field, schema] of Object.entries(properties)) {
      if (!(field in members)) {
        problems.push(`${name}.${field}: in the OpenAPI document only`);
        continue;
      }
      let expected: string;
      try {
        expected = expectedXsdType(schema, schemas);
      } catch (error) {
        problems.push(`${name}.${field}: ${(error as Error).message}`);
        continue;
      }
      if (members[field] !== expected)
        problems.push(`${name}.${field}: OpenAPI needs ${expected}, types.xsd has ${members[field]}`);
      if (expected.includes(':ArrayOf')) {
        const arrayType = xsd[expected.slice(expected.indexOf(':') + 1)];
        if (!arrayType) problems.push(`${name}.${field}: ${expected} is not defined`);
        else {
          const itemType = expectedXsdType(schema.items ?? {}, schemas);
          const itemMembers = Object.values(arrayType);
          if (itemMembers.length !== 1 || itemMembers[0] !== itemType) {
            problems.push(`${name}.${field}: ${expected} should hold ${itemType}, holds ${itemMembers.join(', ')}`);
          }
        }
      }
    }
    for (const field of Object.keys(members)) {
      if (!(field in properties)) problems.push(`${name}.${field}: in types.xsd only`);
    }
  }
  return problems;
}

describe('contract: OpenAPI DTO schemas ↔ SOAP XSD complex types', () => {
  let schemas: Schemas;

  before(async () => {
    const document = parse(
      await readFile(new URL('../../../openapi/reporting-service.yaml', import.meta.url), 'utf8'),
    ) as {
      components: { schemas: Schemas };
    };
    schemas = document.components.schemas;
  });

  it('describe the same DTOs, fields and compatible types', () => {
    expect(compareContracts(schemas, xsdComplexTypes as unknown as XsdTypes)).to.deep.equal([]);
  });

  it('cover every DTO the brief names', () => {
    for (const dto of [
      'EchoRequest',
      'EchoResponse',
      'GetFlatRequest',
      'GetFlatResponse',
      'SelectedOptions',
      'ReportModel',
      'ReportRow',
      'ResponseStatus',
      'ResponseError',
      'ErrorResponse',
    ]) {
      expect(xsdComplexTypes, dto).to.have.property(dto);
      expect(schemas, dto).to.have.property(dto);
    }
  });

  it('fails when a field is added to one side only, or a type drifts', () => {
    const xsd = structuredClone(xsdComplexTypes) as unknown as XsdTypes;
    const openapi = structuredClone(schemas);
    openapi.EchoResponse!.properties!.Extra = { type: 'string' };
    xsd.GetFlatResponse!.Extra = 'xs:string';
    xsd.ReportModel!.BuildTime = 'xs:long';
    openapi.NewDto = { type: 'object', properties: { A: { type: 'string' } } };
    expect(compareContracts(openapi, xsd)).to.have.members([
      'NewDto: in the OpenAPI document, no complexType in types.xsd',
      'EchoResponse.Extra: in the OpenAPI document only',
      'GetFlatResponse.Extra: in types.xsd only',
      'ReportModel.BuildTime: OpenAPI needs xs:int, types.xsd has xs:long',
    ]);
  });

  it(
    'maps the JSON forms as decided: Filters are GUIDs (List<Guid>: ArrayOfguid), dates are xs:dateTime, Values ' +
      'decimals',
    () => {
      expect(xsdComplexTypes.GetFlatRequest.Filters).to.equal('arr:ArrayOfguid');
      expect(xsdComplexTypes.SelectedOptions.Filters).to.equal('arr:ArrayOfguid');
      expect(xsdComplexTypes.SelectedOptions.StartDate).to.equal('xs:dateTime');
      expect(xsdComplexTypes.ReportRow.Values).to.equal('arr:ArrayOfdecimal');
      expect(xsdComplexTypes.ReportModel.Rows).to.equal('tns:ArrayOfReportRow');
      expect(xsdComplexTypes.ResponseStatus.Errors).to.equal('tns:ArrayOfResponseError');
    },
  );

  it('is written as the DataContract exporter writes it', () => {
    const elements = xsdElements as Record<string, { type: string; nillable: boolean }>;
    for (const [name, members] of Object.entries(xsdMembers)) {
      const prefix = (xsdTypeNamespaces as Record<string, string>)[name] === TYPES_NS ? 'tns' : 'arr';
      expect(elements[name], `global element ${name}`).to.deep.equal({ type: `${prefix}:${name}`, nillable: true });
      for (const m of members) {
        expect(m.minOccurs, `${name}.${m.name} minOccurs`).to.equal(0);
        const valueType = ['xs:int', 'xs:boolean', 'xs:dateTime', 'xs:decimal', 'ser:guid'].includes(m.type);
        expect(m.nillable, `${name}.${m.name} nillable`).to.equal(!valueType);
      }
      const names = members.map((m) => m.name);
      if (!name.startsWith('ArrayOf') && !ORDERED_BY_DATAMEMBER.has(name)) {
        expect(names, `${name} member order`).to.deep.equal([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      if (name.startsWith('ArrayOf')) expect(members.map((m) => m.maxOccurs)).to.deep.equal(['unbounded']);
    }
    expect(Object.keys(xsdComplexTypes.ResponseStatus)).to.deep.equal(['ErrorCode', 'Message', 'StackTrace', 'Errors']);
  });
});
