/**
 * The operation record: openapi/ walked once, one record per operation with everything the rest of the service
 * asks about it: method, path template (and its Express form and segments), request DTO, whether it needs a key,
 * the binding plan, and per documented status the response DTO type and media types. Routing, binding, security,
 * the writers, conformance, the client contract generator and the warm-up all read these records; nothing else
 * walks `doc.paths`.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { bindingPlan, type BindingPlan } from './binding-plan.ts';
import { openApiContract, type Dereferenced, type OpenApiContract, type SchemaShape } from './openapi-document.ts';
import { parseTemplate, type RouteSegment } from './routes.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type Operation = Dereferenced<OpenAPIV3.OperationObject>;

export interface ResponseRecord {
  /** The DTO schema its JSON content names (`EchoResponse`, `ErrorResponse`), or its items name when it is an array. */
  dtoType?: string;
  /** The JSON content is an array of `dtoType` (a batch's answer). */
  list: boolean;
  /** The JSON content's schema (dereferenced), if it has one. */
  schema?: SchemaShape;
  /** Documented media types, in document order. */
  mediaTypes: readonly string[];
}

export interface OperationRecord {
  operationId: string;
  /** Upper-case HTTP method (HEAD requests resolve to the GET record). */
  method: string;
  /** The path as written in openapi/, e.g. `/v1/echo/{Message}`. */
  template: string;
  segments: readonly RouteSegment[];
  /** True for ServiceStack's pre-defined `/{format}/reply/{Op}` routes. */
  predefined: boolean;
  /** The ServiceStack request DTO (`x-request-dto`), e.g. `GetFlatRequest`: it names the service that answers. */
  requestDto: string;
  /**
   * `x-batch: true`: ServiceStack's auto-batched route (`/json/reply/{Op}[]`). The body is an array of `requestDto`
   * items, each bound and answered by the same binder and service; the `200` answer an array of the response DTO.
   */
  batch: boolean;
  /** The operation's `security` requires a key (no empty `{}` alternative). */
  secured: boolean;
  binding: BindingPlan;
  /** Per documented status (`200`, `4XX`, ...). */
  responses: ReadonlyMap<string, ResponseRecord>;
  /** The operation object as openapi/ writes it, dereferenced (its parameters and request body). Shared: read only. */
  definition: Operation;
}

export interface OperationTable {
  readonly all: readonly OperationRecord[];
  /** The single error DTO type the contract documents (`ErrorResponse`). */
  readonly errorType: string;
  byId(operationId: string): OperationRecord | undefined;
}

function responseRecord(contract: OpenApiContract, response: Dereferenced<OpenAPIV3.ResponseObject>): ResponseRecord {
  const content = response.content ?? {};
  const schema = content['application/json']?.schema;
  const list = schema?.type === 'array';
  const named = list ? schema.items : schema;
  return {
    dtoType: named && contract.schemaName(named),
    list,
    schema,
    mediaTypes: Object.keys(content),
  };
}

function isSecured(operation: Operation, contract: OpenApiContract): boolean {
  const security = operation.security ?? contract.document.security;
  return Array.isArray(security) && security.length > 0 && !security.some((s) => Object.keys(s).length === 0);
}

export function readOperations(contract: OpenApiContract): OperationTable {
  const all: OperationRecord[] = [];
  for (const [template, item] of Object.entries(contract.document.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      const { 'x-request-dto': requestDto, 'x-batch': batch = false } = operation as {
        'x-request-dto'?: string;
        'x-batch'?: boolean;
      };
      if (!operation.operationId || !requestDto)
        throw new Error(`openapi: ${method.toUpperCase()} ${template} needs operationId and x-request-dto`);
      all.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        template,
        segments: parseTemplate(template),
        predefined: /^\/json\/reply\//i.test(template),
        requestDto,
        batch,
        secured: isSecured(operation, contract),
        binding: bindingPlan(contract, operation),
        responses: new Map(
          Object.entries(operation.responses ?? {}).map(([status, response]) => [
            status,
            responseRecord(contract, response),
          ]),
        ),
        definition: operation,
      });
    }
  }
  const errorTypes = new Set(
    all
      .flatMap((op) => [...op.responses].filter(([status]) => Number(status.charAt(0)) >= 4).map(([, r]) => r.dtoType))
      .filter((t) => t !== undefined),
  );
  if (errorTypes.size !== 1)
    throw new Error(`openapi: expected one error DTO type, found ${[...errorTypes].join(', ') || 'none'}`);
  const byId = new Map(all.map((op) => [op.operationId, op]));
  return { all, errorType: [...errorTypes][0]!, byId: (id) => byId.get(id) };
}

let cached: OperationTable | undefined;

/** The records of the service's own contract (openapi/reporting-service.yaml), read once per process. */
export function contractOperations(): OperationTable {
  cached ??= readOperations(openApiContract());
  return cached;
}

/** The documented response of `op` for `status` (exact, then `4XX`-style), if any. */
export function responseFor(op: OperationRecord | undefined, status: number): ResponseRecord | undefined {
  return op?.responses.get(String(status)) ?? op?.responses.get(`${String(status).charAt(0)}XX`);
}

/** The media types `op` answers with on success: the `200` response's, in document order. */
export function successMediaTypes(op: OperationRecord): readonly string[] {
  return op.responses.get('200')?.mediaTypes ?? [];
}

/**
 * The DTO type of a response to `op` with `status`: the documented one; for an undocumented error status (or no
 * operation), the contract's error type; for an undocumented success status, the `200` type.
 */
export function dtoTypeOf(table: OperationTable, op: OperationRecord | undefined, status: number): string {
  const documented = responseFor(op, status)?.dtoType;
  if (documented) return documented;
  if (status >= 400 || !op) return table.errorType;
  const success = op.responses.get('200')?.dtoType;
  if (!success) throw new Error(`openapi: ${op.operationId} documents no 200 DTO`);
  return success;
}
