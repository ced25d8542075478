/**
 * The requests of the contract's rules, as data: one per rule of openapi/ (each operation's valid sample, a bad
 * request, a request without a key), of wsdl/ and of the wire rules. The conformance suite checks the answers to
 * these; `npm run compare` replays the same requests (plus the binder forms of
 * packages/migration-tools/src/compare/sources/battery.ts) against two hosts. Nothing here sends anything.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { openApiContract, type Dereferenced, type OpenApiContract } from '../contract/openapi-document.ts';
import { readOperations, type OperationRecord } from '../contract/operations.ts';

type Operation = Dereferenced<OpenAPIV3.OperationObject>;

export const SAMPLE_MESSAGE = 'conformance';
export const ECHO_PATH = `/v1/echo/${SAMPLE_MESSAGE}`;

export interface ContractRequest {
  method: string;
  /** Path and query, relative to the deployment's base URL. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** `false`: sent without the caller's API key (a 401 rule, or an anonymous call of a public operation). */
  key?: boolean;
}

export interface OperationRequests {
  record: OperationRecord;
  operationId: string;
  template: string;
  method: string;
  needsKey: boolean;
  /** A valid request (undefined when the contract gives no way to build one, e.g. a signed token). */
  sample?: ContractRequest;
  /** A request the operation must refuse with 400, when it documents one and has an input that can be malformed. */
  bad?: ContractRequest;
}

/** Every operation of openapi/ (the service's own unless `contract` is given) with its sample and bad requests. */
export function operationRequests(
  companyId: number,
  contract: OpenApiContract = openApiContract(),
): OperationRequests[] {
  return readOperations(contract).all.map((record) => {
    const { operationId, template, method } = record;
    const op = (contract.document.paths[template] as Record<string, Operation>)[method.toLowerCase()]!;
    return {
      record,
      operationId,
      template,
      method,
      needsKey: record.secured,
      sample: sampleRequest(template, op, method, companyId),
      bad: record.responses.has('400') ? badRequest(template, op, method) : undefined,
    };
  });
}

/** A valid request for an operation: path strings filled in, the company id where the DTO has one. */
function sampleRequest(template: string, op: Operation, verb: string, companyId: number): ContractRequest | undefined {
  const params = op.parameters ?? [];
  let url = template;
  for (const p of params.filter((x) => x.in === 'path')) {
    const schema = p.schema;
    if (schema?.type !== 'string' || schema.pattern) return undefined;
    url = url.replace(`{${p.name}}`, SAMPLE_MESSAGE);
  }
  const hasCompany = params.some((p) => p.in === 'query' && p.name === 'CompanyId');
  if (verb === 'GET') return { method: verb, url: hasCompany ? `${url}?CompanyId=${companyId}` : url };
  const documented = op.requestBody?.content['application/json']?.schema;
  // A batch (`x-batch`, an array body) is sent as a batch of one such request.
  const bodySchema = documented?.type === 'array' ? documented.items : documented;
  const body: Record<string, unknown> = {};
  if (bodySchema?.properties?.CompanyId) body.CompanyId = companyId;
  if (bodySchema?.properties?.Message) body.Message = SAMPLE_MESSAGE;
  return {
    method: verb,
    url,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(documented?.type === 'array' ? [body] : body),
  };
}

/** A request the operation must refuse with 400: a non-integer for an integer query field, or a malformed JSON body. */
function badRequest(template: string, op: Operation, verb: string): ContractRequest | undefined {
  if (verb === 'POST')
    return { method: verb, url: template, headers: { 'Content-Type': 'application/json' }, body: '{"Message":' };
  const params = op.parameters ?? [];
  if (params.some((p) => p.in === 'path')) return undefined;
  const integer = params.find((p) => p.in === 'query' && p.schema?.type === 'integer');
  return integer ? { method: verb, url: `${template}?${integer.name}=not-a-number` } : undefined;
}

/** The rules of wsdl/: the WSDL is served; a POSTed SOAP 1.2 message gets a fault. */
export const WSDL_REQUESTS = {
  'wsdl:served': { method: 'GET', url: '/soap12?wsdl' },
  'soap:fault': {
    method: 'POST',
    url: '/soap12',
    headers: { 'Content-Type': 'application/soap+xml; charset=utf-8' },
    body:
      `<?xml version="1.0" encoding="utf-8"?><soap:Envelope ` +
      `xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><EchoRequest ` +
      `xmlns="http://schemas.servicestack.net/types"><Message>${SAMPLE_MESSAGE}</Message></EchoRequest></soap:Body>` +
      `</soap:Envelope>`,
  },
} as const satisfies Record<string, ContractRequest>;

/** The report request of the wire rules that need one (January 2024 of `companyId`). */
export function reportPath(companyId: number): string {
  return (
    `/v1/Reporting/ProfitAndLoss/Flat?CompanyId=${companyId}&UseCustomDateRange=true&StartDate=2024-01-01&` +
    `EndDate=2024-01-31`
  );
}

export const HYPHENATED_GUID = '0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9';

/** The wire rules of the spec (README's behaviour list, openapi/'s description), one request each. */
export function wireRequests(companyId: number) {
  return {
    'wire:json-default': { method: 'GET', url: ECHO_PATH },
    'wire:json-suffix': { method: 'GET', url: `${ECHO_PATH}.json`, headers: { Accept: 'application/xml' } },
    'wire:format-json': { method: 'GET', url: `${ECHO_PATH}?format=json`, headers: { Accept: 'application/xml' } },
    'wire:jsonp': { method: 'GET', url: `${ECHO_PATH}?callback=cb` },
    'wire:jsonp-sanitise': { method: 'GET', url: `${ECHO_PATH}?callback=${encodeURIComponent('a<b>(c);d')}` },
    'wire:jsonp-error': { method: 'GET', url: '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=x&callback=cb' },
    'wire:case-insensitive': { method: 'GET', url: `/V1/ECHO/${SAMPLE_MESSAGE}` },
    'wire:404-text-plain': { method: 'GET', url: '/conformance/no/such/route' },
    'wire:405-unknown-op': { method: 'GET', url: '/json/reply/NoSuchConformanceOperation' },
    'wire:date-form': { method: 'GET', url: reportPath(companyId) },
    'wire:guid-form': { method: 'GET', url: `${reportPath(companyId)}&Filters=${HYPHENATED_GUID}` },
    'wire:xml': { method: 'GET', url: `${ECHO_PATH}.xml` },
    'wire:jsv': { method: 'GET', url: `${ECHO_PATH}.jsv` },
    'wire:csv': { method: 'GET', url: `/csv/reply/EchoRequest?Message=${SAMPLE_MESSAGE}` },
    'wire:html': { method: 'GET', url: ECHO_PATH, headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } },
    'wire:json-body-any-type': {
      method: 'POST',
      url: '/json/reply/EchoRequest',
      headers: { 'Content-Type': 'text/plain' },
      body: `{"Message":"${SAMPLE_MESSAGE}",}`,
    },
    'wire:metadata': { method: 'GET', url: '/' },
  } as const satisfies Record<string, ContractRequest>;
}
