/**
 * What each operation's inputs are, read from openapi/: for every query parameter and body property, the
 * canonical name and how the legacy binder parses it. Nothing here restates a DTO by hand.
 */
import type { OpenAPIV3 } from 'openapi-types';
import type { Dereferenced, OpenApiContract } from './openapi-document.ts';

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
  /** JSON body properties by lower-cased name (operations with a body only; a batch's: each item's). */
  body?: Map<string, FieldSpec>;
}

type Schema = Dereferenced<OpenAPIV3.SchemaObject>;

/** Named schemas the binder reads in the legacy forms (`/Date(...)/` or ISO dates; 32-hex or hyphenated GUIDs). */
const SPECIAL_SCHEMAS: Record<string, ScalarKind> = {
  LegacyDateInput: { kind: 'date' },
  LegacyDate: { kind: 'date' },
  GuidInput: { kind: 'guid' },
  Guid: { kind: 'guid' },
};

function scalarKind(contract: OpenApiContract, schema: Schema): ScalarKind {
  const special = SPECIAL_SCHEMAS[contract.schemaName(schema) ?? ''];
  if (special) return special;
  if (schema.enum) return { kind: 'enum', values: schema.enum.map(String) };
  switch (schema.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
      return { kind: 'integer' };
    case 'string':
      return { kind: 'string' };
    default:
      throw new Error(`openapi: the binder does not read fields of type ${String(schema.type)}`);
  }
}

function fieldKind(contract: OpenApiContract, schema: Schema): FieldKind {
  if (schema.type === 'array') return { kind: 'array', items: scalarKind(contract, schema.items) };
  return scalarKind(contract, schema);
}

function byLowerName(fields: FieldSpec[]): Map<string, FieldSpec> {
  return new Map(fields.map((f) => [f.name.toLowerCase(), f]));
}

export function bindingPlan(
  contract: OpenApiContract,
  operation: Dereferenced<OpenAPIV3.OperationObject>,
): BindingPlan {
  const parameters = (operation.parameters ?? []).filter((p) => p.schema);
  const fields = (where: string) =>
    parameters.filter((p) => p.in === where).map((p) => ({ name: p.name, type: fieldKind(contract, p.schema!) }));
  const plan: BindingPlan = { path: fields('path'), query: byLowerName(fields('query')) };
  const documented = operation.requestBody?.content['application/json']?.schema;
  // A batch's body is an array of the DTO: each item is bound by the DTO's plan.
  const bodySchema = documented?.type === 'array' ? documented.items : documented;
  if (bodySchema) {
    plan.body = byLowerName(
      Object.entries(bodySchema.properties ?? {}).map(([name, schema]) => ({
        name,
        type: fieldKind(contract, schema),
      })),
    );
  }
  return plan;
}
