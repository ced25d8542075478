/**
 * The document express-openapi-validator checks requests against. The legacy binder has already read the raw
 * query (legacy clients send `/Date(...)/`, `[1,2]` and `{guid}` unencoded, which the original accepted), so the
 * validator checks the bound values and not their encoding: every query parameter is marked `allowReserved` here,
 * while the published contract asks conforming clients to percent-encode (a raw `+` is a space).
 */
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

type Parameter = OpenAPIV3.ParameterObject | OpenAPIV3.ReferenceObject;

function allowReserved(parameters: Parameter[] | undefined): void {
  for (const parameter of parameters ?? []) {
    if (!('$ref' in parameter) && parameter.in === 'query') parameter.allowReserved = true;
  }
}

const PARAMETER_REF = /^#\/components\/parameters\/([^/]+)$/;

/**
 * An operation's `$ref` parameters replaced by the components they name: the library looks each one up again for every
 * request it validates.
 */
function inlineParameters(parameters: Parameter[] | undefined, components: Record<string, Parameter>): Parameter[] | undefined {
  return parameters?.map((parameter) => {
    const name = '$ref' in parameter ? PARAMETER_REF.exec(parameter.$ref)?.[1] : undefined;
    const component = name === undefined ? undefined : components[name];
    return component && !('$ref' in component) ? structuredClone(component) : parameter;
  });
}

export function validatorDocument(contract: OpenAPIV3.DocumentV3): OpenAPIV3.DocumentV3 {
  const doc = structuredClone(contract);
  const components = doc.components?.parameters ?? {};
  allowReserved(Object.values(components));
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item ?? {})) {
      if (operation && typeof operation === 'object' && 'responses' in operation) {
        const op = operation as OpenAPIV3.OperationObject;
        op.parameters = inlineParameters(op.parameters, components);
        allowReserved(op.parameters);
      }
    }
  }
  return doc;
}
