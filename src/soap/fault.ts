/**
 * Renders an AppError as a SOAP fault with a real XML builder (never by concatenating client text).
 *
 * * SOAP 1.2 (`application/soap+xml; charset=utf-8`): env:Code/env:Value is the registry's fault code, env:Subcode
 *   carries the registry ErrorCode as `svc:<ErrorCode>`, env:Reason/env:Text xml:lang="en" the message, env:Detail an
 *   ErrorResponse DTO (types.xsd) with the same ResponseStatus the JSON edge would send.
 * * VersionMismatch faults carry the env:Upgrade header block naming SOAP 1.2 as the supported envelope
 *   (SOAP 1.2 part 1, 5.4.7). When the request was a SOAP 1.1 envelope the fault is written as a SOAP 1.1 envelope
 *   (`text/xml`), as SOAP 1.2 part 1 appendix A requires, so that a SOAP 1.1 client can read it.
 *
 * HTTP status (SOAP 1.2 part 2, 7.5.2.2): env:Sender → 400, every other fault code → 500. Errors detected at the HTTP
 * layer before any SOAP processing (413 body too large, 415 content type) keep their registry status.
 */
import { XMLBuilder } from 'fast-xml-parser';
import type { AppError } from '../errors/app-error.ts';
import { errorRegistry, type ErrorCode, type SoapFaultCode } from '../errors/registry.ts';
import { SERVICESTACK_TYPES_NS, SOAP11_ENV_NS, SOAP12_ENV_NS } from './namespaces.ts';

export const SOAP12_CONTENT_TYPE = 'application/soap+xml; charset=utf-8';
export const SOAP11_CONTENT_TYPE = 'text/xml; charset=utf-8';

/** Statuses that belong to the HTTP layer, not to SOAP processing. */
const HTTP_LAYER_STATUSES: ReadonlySet<number> = new Set([413, 415]);
/** Longest message (in characters) echoed back in a fault; client text beyond it is cut. */
const MAX_MESSAGE_CHARS = 1000;

export interface RenderedFault {
  status: number;
  contentType: string;
  body: string;
}

export interface FaultOptions {
  /** The envelope version the client spoke; only a SOAP 1.1 envelope gets a SOAP 1.1 fault. */
  envelope?: 'soap12' | 'soap11';
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: true,
  format: false,
  processEntities: true,
});

export function soapHttpStatus(code: ErrorCode): number {
  const definition = errorRegistry[code];
  if (HTTP_LAYER_STATUSES.has(definition.status)) return definition.status;
  return definition.fault === 'Sender' ? 400 : 500;
}

function clip(text: string): string {
  // Remove characters XML 1.0 cannot carry at all (the builder escapes markup, not these).
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}…` : clean;
}

/** The Upgrade header block (SOAP 1.2 part 1, 5.4.7.2), with the prefixes of the specification's examples. */
function upgradeHeader(inSoap11: boolean) {
  const supported = { '@_qname': 'ns1:Envelope', '@_xmlns:ns1': SOAP12_ENV_NS };
  // In a SOAP 1.1 envelope the Upgrade block is still the SOAP 1.2 one, in its own namespace (part 1, appendix A).
  return inSoap11
    ? { 'upg:Upgrade': { '@_xmlns:upg': SOAP12_ENV_NS, 'upg:SupportedEnvelope': supported } }
    : { 'env:Upgrade': { 'env:SupportedEnvelope': supported } };
}

function errorResponseDetail(error: AppError, message: string) {
  return {
    ErrorResponse: {
      '@_xmlns': SERVICESTACK_TYPES_NS,
      ResponseStatus: {
        ErrorCode: error.code,
        Message: message,
        Errors: error.fieldErrors.length
          ? {
              ResponseError: error.fieldErrors.map((field) => ({
                ErrorCode: clip(field.errorCode),
                FieldName: clip(field.fieldName),
                Message: clip(field.message),
              })),
            }
          : '',
      },
    },
  };
}

function render12(error: AppError, fault: SoapFaultCode, message: string): string {
  const envelope = {
    'env:Envelope': {
      '@_xmlns:env': SOAP12_ENV_NS,
      '@_xmlns:svc': SERVICESTACK_TYPES_NS,
      ...(fault === 'VersionMismatch' ? { 'env:Header': upgradeHeader(false) } : {}),
      'env:Body': {
        'env:Fault': {
          'env:Code': {
            'env:Value': `env:${fault}`,
            'env:Subcode': { 'env:Value': `svc:${error.code}` },
          },
          'env:Reason': { 'env:Text': { '@_xml:lang': 'en', '#text': message } },
          'env:Detail': errorResponseDetail(error, message),
        },
      },
    },
  };
  return builder.build(envelope) as string;
}

function render11(error: AppError, fault: SoapFaultCode, message: string): string {
  const code = fault === 'Sender' ? 'Client' : fault === 'Receiver' ? 'Server' : fault;
  // Same prefixes as the example of SOAP 1.2 part 1, appendix A (env = the SOAP 1.1 envelope namespace there).
  const envelope = {
    'env:Envelope': {
      '@_xmlns:env': SOAP11_ENV_NS,
      ...(fault === 'VersionMismatch' ? { 'env:Header': upgradeHeader(true) } : {}),
      'env:Body': {
        'env:Fault': {
          faultcode: `env:${code}`,
          faultstring: message,
          detail: errorResponseDetail(error, message),
        },
      },
    },
  };
  return builder.build(envelope) as string;
}

export function renderFault(error: AppError, options: FaultOptions = {}): RenderedFault {
  const fault = errorRegistry[error.code].fault;
  const message = clip(error.message);
  const soap11 = options.envelope === 'soap11';
  const xml = soap11 ? render11(error, fault, message) : render12(error, fault, message);
  return {
    status: soapHttpStatus(error.code),
    contentType: soap11 ? SOAP11_CONTENT_TYPE : SOAP12_CONTENT_TYPE,
    body: `<?xml version="1.0" encoding="utf-8"?>${xml}`,
  };
}
