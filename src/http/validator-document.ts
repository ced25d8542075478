/**
 * The document express-openapi-validator checks requests against. The legacy binder has already read the raw
 * query (legacy clients send `/Date(...)/`, `[1,2]` and `{guid}` unencoded, which the original accepted), so the
 * validator checks the bound values and not their encoding: every query parameter is marked `allowReserved` here,
 * while the published contract asks conforming clients to percent-encode (a raw `+` is a space).
 */
import type { OpenAPIV3 } from 'openapi-types';

type Parameter = OpenAPIV3.ParameterObject | OpenAPIV3.ReferenceObject;

function allowReserved(parameters: Parameter[] | undefined): void {
  for (const parameter of parameters ?? []) {
    if (!('$ref' in parameter) && parameter.in === 'query') parameter.allowReserved = true;
  }
}

/**
 * The validator matches each path as a path-to-regexp route, where `[ ] ( ) ? + ! *` are reserved: a batch route's
 * `/json/reply/EchoRequest[]` is keyed with them escaped, so it matches the literal path.
 */
function escapeReserved(paths: OpenAPIV3.PathsObject): OpenAPIV3.PathsObject {
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path.replace(/[[\]()?+!*]/g, '\\$&'), item]));
}

export function validatorDocument(contract: OpenAPIV3.Document): OpenAPIV3.Document {
  const doc = structuredClone(contract);
  doc.paths = escapeReserved(doc.paths);
  allowReserved(Object.values(doc.components?.parameters ?? {}));
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item ?? {})) {
      if (operation && typeof operation === 'object' && 'responses' in operation)
        allowReserved((operation as OpenAPIV3.OperationObject).parameters);
    }
  }
  return doc;
}
