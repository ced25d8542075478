/**
 * What each operation's inputs are, read from openapi/: for every query parameter and body property, the
 * canonical name and how the legacy binder parses it. Nothing here restates a DTO by hand.
 */
import type { OpenAPIV3 } from 'openapi-types';

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

/** How the legacy binder reads one operation's inputs. */
export interface BindingPlan {
  /** Path variables, by name as in the template. */
  path: readonly FieldSpec[];
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

function resolve<T extends object>(doc: OpenAPIV3.Document, node: T | OpenAPIV3.ReferenceObject): T {
  if ('$ref' in node) {
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref) ?? [];
    const target = (doc.components as Record<string, Record<string, unknown>> | undefined)?.[section!]?.[name!];
    if (!target) throw new Error(`openapi: unresolved ${node.$ref}`);
    return resolve(doc, target as T);
  }
  return node;
}

function scalarKind(doc: OpenAPIV3.Document, schema: Schema): ScalarKind {
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

function fieldKind(doc: OpenAPIV3.Document, schema: Schema): FieldKind {
  const resolved = resolve<OpenAPIV3.SchemaObject>(doc, schema);
  if (resolved.type === 'array') return { kind: 'array', items: scalarKind(doc, (resolved as OpenAPIV3.ArraySchemaObject).items) };
  return scalarKind(doc, schema);
}

function byLowerName(fields: FieldSpec[]): Map<string, FieldSpec> {
  return new Map(fields.map((f) => [f.name.toLowerCase(), f]));
}

export function bindingPlan(doc: OpenAPIV3.Document, operation: OpenAPIV3.OperationObject): BindingPlan {
  const parameters = (operation.parameters ?? []).map((p) => resolve<OpenAPIV3.ParameterObject>(doc, p)).filter((p) => p.schema);
  const fields = (where: string) => parameters.filter((p) => p.in === where).map((p) => ({ name: p.name, type: fieldKind(doc, p.schema!) }));
  const plan: BindingPlan = { path: fields('path'), query: byLowerName(fields('query')) };
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
