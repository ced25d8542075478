/**
 * Each operation's request as JSON Schemas, shaped as express-openapi-validator shapes them (one schema over
 * `{query, headers, params, cookies, body}` for the parameters, one for the JSON body), so that one ajv of the same
 * dialect checks a request as it did. `unsupportedRequestFeatures` names what of the contract this shape cannot carry
 * (a parameter style, `readOnly`, `discriminator`, a non-JSON body ...): such a contract is refused, never
 * half-checked.
 */
import type { OpenAPIV3 } from 'openapi-types';
import type { Dereferenced, SchemaShape } from './openapi-document.ts';
import type { Operation, OperationRecord } from './operations.ts';

type Parameter = Dereferenced<OpenAPIV3.ParameterObject>;
type JsonSchema = Record<string, unknown>;

interface RequestSchemas {
  /** Path variables, query and header parameters: `{query, headers, params, cookies, body}`, `body` left free. */
  parameters: JsonSchema;
  /** The `application/json` body under `body`, the rest left free. */
  body: JsonSchema;
}

/** Where a parameter's value is read from, as the validator names the request's parts. */
const PART: Record<string, string> = { query: 'query', path: 'params', header: 'headers' };

/** The schema keywords the validators read the same way on their own as through express-openapi-validator. */
const SCHEMA_KEYWORDS = new Set([
  'type',
  'format',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'items',
  'properties',
  'required',
  'description',
  'example',
  'title',
]);
/** Formats checked as express-openapi-validator checks them (src/http/request-validation.ts). */
const REQUEST_FORMATS = new Set(['int32', 'int64', 'float', 'double']);
const PARAMETER_KEYS = new Set(['name', 'in', 'required', 'schema', 'description', 'example', 'style', 'explode']);
/** Each location's style, and whether an array parameter there may be exploded (`Filters=a&Filters=b`). */
const STYLES: Record<string, { style: string; arrays: 'explode' | 'none' }> = {
  query: { style: 'form', arrays: 'explode' },
  path: { style: 'simple', arrays: 'none' },
  header: { style: 'simple', arrays: 'none' },
};

/** How the schemas and the problems name an operation: `METHOD template`. */
export const operationName = (op: OperationRecord): string => `${op.method} ${op.template}`;

function schemaProblems(schema: SchemaShape | undefined, where: string, problems: string[]): void {
  if (!schema) return;
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYWORDS.has(key) && !key.startsWith('x-')) problems.push(`${where}: \`${key}\``);
  }
  if (schema.format !== undefined && !REQUEST_FORMATS.has(schema.format))
    problems.push(`${where}: format \`${schema.format}\``);
  if (schema.type === 'array') schemaProblems(schema.items, `${where}[]`, problems);
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    schemaProblems(property, `${where}.${name}`, problems);
}

function parameterProblems(parameter: Parameter, where: string, problems: string[]): void {
  const rule = STYLES[parameter.in];
  if (!rule) return void problems.push(`${where}: parameters in ${parameter.in}`);
  for (const key of Object.keys(parameter)) {
    if (!PARAMETER_KEYS.has(key) && !key.startsWith('x-')) problems.push(`${where}: \`${key}\``);
  }
  if (parameter.style !== undefined && parameter.style !== rule.style)
    problems.push(`${where}: style \`${parameter.style}\``);
  const array = parameter.schema?.type === 'array';
  const exploded = parameter.explode ?? rule.style === 'form';
  if (array && rule.arrays === 'none') problems.push(`${where}: an array in ${parameter.in}`);
  if (array && rule.arrays === 'explode' && !exploded) problems.push(`${where}: explode \`false\``);
  if (parameter.schema?.type === 'object') problems.push(`${where}: an object in ${parameter.in}`);
  schemaProblems(parameter.schema, where, problems);
}

/** What of the operations' requests the validators could not check as express-openapi-validator does; [] if none. */
export function unsupportedRequestFeatures(operations: readonly OperationRecord[]): string[] {
  const problems: string[] = [];
  for (const op of operations) {
    const name = operationName(op);
    const operation = op.definition;
    for (const parameter of operation.parameters ?? [])
      parameterProblems(parameter, `${name} parameter ${parameter.name}`, problems);
    const body = operation.requestBody;
    if (!body) continue;
    const mediaTypes = Object.keys(body.content);
    if (mediaTypes.length !== 1 || mediaTypes[0] !== 'application/json')
      problems.push(`${name}: a request body in ${mediaTypes.join(', ')} (only application/json)`);
    schemaProblems(body.content['application/json']?.schema, `${name} body`, problems);
  }
  return problems;
}

interface PartSchema {
  type?: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
}

function parameterSchemas(parameters: readonly Parameter[]): JsonSchema {
  const parts: Record<string, PartSchema> = { query: {}, headers: {}, params: {}, cookies: {} };
  for (const parameter of parameters) {
    const part = parts[PART[parameter.in]!]!;
    // Node's header names are lower case, and express-openapi-validator lower-cases a header parameter's name.
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    part.type = 'object';
    (part.properties ??= {})[name] = parameter.schema;
    if (parameter.required) (part.required ??= []).push(name);
  }
  return { required: ['query', 'headers', 'params'], properties: { ...parts, body: {} } };
}

function bodySchema(operation: Operation): JsonSchema {
  const body = operation.requestBody;
  const properties = {
    query: {},
    headers: {},
    params: {},
    cookies: {},
    body: body?.content['application/json']?.schema ?? {},
  };
  return body?.required ? { properties, required: ['body'] } : { properties };
}

/** The request schemas of every operation, by `METHOD template`; throws on what of the contract they cannot carry. */
export function requestSchemas(operations: readonly OperationRecord[]): Map<string, RequestSchemas> {
  const problems = unsupportedRequestFeatures(operations);
  if (problems.length) throw new Error(`openapi: the request validators do not implement ${problems.join('; ')}`);
  return new Map(
    operations.map((op) => [
      operationName(op),
      { parameters: parameterSchemas(op.definition.parameters ?? []), body: bodySchema(op.definition) },
    ]),
  );
}
