/**
 * The contract as ServiceStack's metadata feature described a host: its operations (request DTO, response DTO,
 * verbs, REST routes) and every DTO's properties with their .NET types, read from openapi/ (the operation records
 * and the DTO schemas). The metadata pages, /operations/metadata and /types/metadata render this one model.
 */
import { openApiContract, type OpenApiContract, type SchemaShape } from './openapi-document.ts';
import { contractOperations } from './operations.ts';

/**
 * A property's .NET type: `Name` as MetadataTypes names it (`Int32`, ``List`1``), its C# spelling, generic arguments.
 */
export interface ClrType {
  name: string;
  csharp: string;
  genericArgs?: string[];
  valueType: boolean;
  /** Set for a DTO of the contract. */
  dto?: string;
  /** For a list: its item. */
  item?: ClrType;
}

export interface DtoProperty {
  name: string;
  type: ClrType;
}

export interface MetadataOperation {
  requestDto: string;
  responseDto: string;
  /** HTTP verbs the contract takes for it (its REST routes and the predefined route). */
  verbs: string[];
  /** REST routes (the predefined `/{format}/reply/{Op}` routes exist for every operation). */
  routes: { path: string; verbs: string }[];
}

export interface MetadataModel {
  operations: MetadataOperation[];
  dtos: Map<string, DtoProperty[]>;
}

const SCALAR_REFS: Record<string, ClrType> = {
  LegacyDate: { name: 'DateTime', csharp: 'DateTime', valueType: true },
  LegacyDateInput: { name: 'DateTime', csharp: 'DateTime', valueType: true },
  Guid: { name: 'Guid', csharp: 'Guid', valueType: true },
  GuidInput: { name: 'Guid', csharp: 'Guid', valueType: true },
};

function clrType(contract: OpenApiContract, schema: SchemaShape): ClrType {
  const name = contract.schemaName(schema);
  if (name) {
    const scalar = SCALAR_REFS[name];
    if (scalar) return scalar;
    if (schema.type === 'object' || schema.properties) return { name, csharp: name, valueType: false, dto: name };
  }
  switch (schema.type) {
    case 'boolean':
      return { name: 'Boolean', csharp: 'bool', valueType: true };
    case 'integer':
      return schema.format === 'int64'
        ? { name: 'Int64', csharp: 'long', valueType: true }
        : { name: 'Int32', csharp: 'int', valueType: true };
    case 'number':
      return { name: 'Decimal', csharp: 'decimal', valueType: true };
    case 'array': {
      const item = clrType(contract, schema.items);
      return { name: 'List`1', csharp: `List<${item.csharp}>`, genericArgs: [item.name], valueType: false, item };
    }
    default:
      return { name: 'String', csharp: 'string', valueType: false };
  }
}

let cached: MetadataModel | undefined;

export function metadataModel(): MetadataModel {
  if (cached) return cached;
  const contract = openApiContract();
  const schemas = contract.document.components?.schemas ?? {};
  const dtos = new Map<string, DtoProperty[]>();
  const visit = (name: string) => {
    if (dtos.has(name)) return;
    const schema = schemas[name];
    if (!schema) return;
    const properties = Object.entries(schema.properties ?? {}).map(([prop, s]) => ({
      name: prop,
      type: clrType(contract, s),
    }));
    dtos.set(name, properties);
    for (const p of properties) {
      const dto = p.type.dto ?? p.type.item?.dto;
      if (dto) visit(dto);
    }
  };
  const operations: MetadataOperation[] = [];
  const all = contractOperations().all;
  for (const op of all.filter((o) => o.predefined)) {
    if (operations.some((o) => o.requestDto === op.requestDto)) continue;
    const same = all.filter((o) => o.requestDto === op.requestDto);
    const responseDto = op.responses.get('200')?.dtoType;
    if (!responseDto || !schemas[op.requestDto]) continue;
    const routes = same.filter((o) => !o.predefined).map((o) => ({ path: o.template, verbs: o.method }));
    operations.push({ requestDto: op.requestDto, responseDto, verbs: [...new Set(same.map((o) => o.method))], routes });
    visit(op.requestDto);
    visit(responseDto);
  }
  visit('ErrorResponse');
  cached = { operations, dtos };
  return cached;
}

const MIN_DATE = '/Date(-62135596800000-0000)/';
const EMPTY_GUID = '00000000000000000000000000000000';

function sampleOf(type: ClrType, model: MetadataModel, depth: number): unknown {
  if (type.item) return [sampleOf(type.item, model, depth)];
  if (type.dto) return depth > 4 ? undefined : sampleDto(type.dto, model, depth + 1);
  switch (type.name) {
    case 'String':
      return 'String';
    case 'Boolean':
      return false;
    case 'DateTime':
      return MIN_DATE;
    case 'Guid':
      return EMPTY_GUID;
    default:
      return 0;
  }
}

/**
 * A DTO filled as ServiceStack's metadata pages filled their samples (AutoMappingUtils.PopulateWith): strings
 * "String", numbers 0, booleans false, dates DateTime.MinValue, GUIDs empty, lists with one item.
 */
export function sampleDto(name: string, model: MetadataModel = metadataModel(), depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of model.dtos.get(name) ?? []) {
    out[p.name] = sampleOf(p.type, model, depth);
  }
  return out;
}
