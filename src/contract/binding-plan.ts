/**
 * What each operation's inputs are, read from openapi/: for every query parameter and body property, the
 * canonical name and how the legacy binder parses it. Nothing here restates a DTO by hand.
 */
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

export type ScalarKind =
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'integer' }
  | { kind: 'date' }
  | { kind: 'guid' }
  | { kind: 'enum'; values: string[] };

export type FieldKind = ScalarKind | { kind: 'array'; items: ScalarKind };

export interface FieldSpec {
  name: string;
  type: FieldKind;
}

export interface OperationPlan {
  operationId: string;
  /** The ServiceStack request DTO (`x-request-dto`), e.g. `GetFlatRequest`. */
  dtoName: string;
  /** Query parameters by lower-cased name. */
  query: Map<string, FieldSpec>;
  /** JSON body properties by lower-cased name (operations with a body only). */
  body?: Map<string, FieldSpec>;
}

type Schema = OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;

const SPECIAL_SCHEMAS: Record<string, ScalarKind> = {
  LegacyDateInput: { kind: 'date' },
  LegacyDate: { kind: 'date' },
  GuidInput: { kind: 'guid' },
  Guid: { kind: 'guid' },
};

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function resolve<T extends object>(doc: OpenAPIV3.DocumentV3, node: T | OpenAPIV3.ReferenceObject): T {
  if ('$ref' in node) {
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref) ?? [];
    const target = (doc.components as Record<string, Record<string, unknown>> | undefined)?.[section!]?.[name!];
    if (!target) throw new Error(`openapi: unresolved ${node.$ref}`);
    return resolve(doc, target as T);
  }
  return node;
}

function scalarKind(doc: OpenAPIV3.DocumentV3, schema: Schema): ScalarKind {
  if ('$ref' in schema) {
    const special = SPECIAL_SCHEMAS[refName(schema.$ref)];
    if (special) return special;
  }
  const resolved = resolve<OpenAPIV3.SchemaObject>(doc, schema);
  if (resolved.enum) return { kind: 'enum', values: resolved.enum.map(String) };
  switch (resolved.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
      return { kind: 'integer' };
    case 'string':
      return { kind: 'string' };
    default:
      throw new Error(`openapi: the binder does not read fields of type ${String(resolved.type)}`);
  }
}

function fieldKind(doc: OpenAPIV3.DocumentV3, schema: Schema): FieldKind {
  const resolved = resolve<OpenAPIV3.SchemaObject>(doc, schema);
  if (resolved.type === 'array') return { kind: 'array', items: scalarKind(doc, (resolved as OpenAPIV3.ArraySchemaObject).items) };
  return scalarKind(doc, schema);
}

function byLowerName(fields: FieldSpec[]): Map<string, FieldSpec> {
  return new Map(fields.map((f) => [f.name.toLowerCase(), f]));
}

export function operationPlan(doc: OpenAPIV3.DocumentV3, template: string, method: string): OperationPlan {
  const operation = (doc.paths[template] as Record<string, OpenAPIV3.OperationObject> | undefined)?.[method.toLowerCase()];
  if (!operation) throw new Error(`openapi: no ${method} ${template}`);
  const query = (operation.parameters ?? [])
    .map((p) => resolve<OpenAPIV3.ParameterObject>(doc, p))
    .filter((p) => p.in === 'query' && p.schema)
    .map((p) => ({ name: p.name, type: fieldKind(doc, p.schema!) }));
  const dtoName = (operation as { 'x-request-dto'?: string })['x-request-dto'];
  if (!operation.operationId || !dtoName) throw new Error(`openapi: ${method} ${template} needs operationId and x-request-dto`);
  const plan: OperationPlan = { operationId: operation.operationId, dtoName, query: byLowerName(query) };
  const bodySchema = operation.requestBody
    ? resolve<OpenAPIV3.RequestBodyObject>(doc, operation.requestBody).content['application/json']?.schema
    : undefined;
  if (bodySchema) {
    const object = resolve<OpenAPIV3.SchemaObject>(doc, bodySchema);
    plan.body = byLowerName(
      Object.entries(object.properties ?? {}).map(([name, schema]) => ({ name, type: fieldKind(doc, schema) })),
    );
  }
  return plan;
}
