/**
 * Which DTO type each response is, read from openapi/: for every operation and documented status, the schema
 * its `application/json` content `$ref`s (`EchoResponse`, `GetFlatResponse`, `ErrorResponse`). Keyed by the
 * request DTO (`x-request-dto`), since every route of one DTO answers the same types.
 */
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function resolveResponse(doc: OpenAPIV3.DocumentV3, node: OpenAPIV3.ResponseObject | OpenAPIV3.ReferenceObject): OpenAPIV3.ResponseObject {
  if ('$ref' in node) {
    const target = doc.components?.responses?.[refName(node.$ref)];
    if (!target) throw new Error(`openapi: unresolved ${node.$ref}`);
    return resolveResponse(doc, target);
  }
  return node;
}

/** The DTO schema name of a response object's JSON content, if it names one. */
export function responseSchemaName(doc: OpenAPIV3.DocumentV3, response: OpenAPIV3.ResponseObject | OpenAPIV3.ReferenceObject): string | undefined {
  const schema = resolveResponse(doc, response).content?.['application/json']?.schema;
  return schema && '$ref' in schema ? refName(schema.$ref) : undefined;
}

export interface ResponseTypes {
  /** The DTO type of a response to `requestDto` with `status`; the error type for undocumented error statuses. */
  typeOf(requestDto: string | undefined, status: number): string;
}

export function responseTypes(doc: OpenAPIV3.DocumentV3): ResponseTypes {
  const byDto = new Map<string, Map<string, string>>();
  const errorTypes = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, OpenAPIV3.OperationObject> | undefined)?.[method];
      const dto = (operation as { 'x-request-dto'?: string } | undefined)?.['x-request-dto'];
      if (!operation || !dto) continue;
      const statuses = byDto.get(dto) ?? new Map<string, string>();
      byDto.set(dto, statuses);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const name = responseSchemaName(doc, response);
        if (!name) continue;
        statuses.set(status, name);
        if (Number(status) >= 400) errorTypes.add(name);
      }
    }
  }
  if (errorTypes.size !== 1) throw new Error(`openapi: expected one error DTO type, found ${[...errorTypes].join(', ') || 'none'}`);
  const errorType = [...errorTypes][0]!;
  return {
    typeOf(requestDto, status) {
      const statuses = requestDto ? byDto.get(requestDto) : undefined;
      const documented = statuses?.get(String(status)) ?? statuses?.get(`${String(status).charAt(0)}XX`);
      if (documented) return documented;
      if (status >= 400 || !statuses) return errorType;
      const success = statuses.get('200');
      if (!success) throw new Error(`openapi: ${requestDto} documents no 200 response`);
      return success;
    },
  };
}
