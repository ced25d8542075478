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

export function validatorDocument(contract: OpenAPIV3.Document): OpenAPIV3.Document {
  const doc = structuredClone(contract);
  allowReserved(Object.values(doc.components?.parameters ?? {}));
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item ?? {})) {
      if (operation && typeof operation === 'object' && 'responses' in operation) allowReserved((operation as OpenAPIV3.OperationObject).parameters);
    }
  }
  return doc;
}
