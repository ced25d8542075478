/**
 * Every message the service answers with, by id (fastify's lib/errors.js, ServiceStack's ErrorMessages): the
 * ErrorCode it is answered as (registry.ts gives that code's HTTP status and SOAP fault code) and a template whose
 * `{name}` parts the caller fills. Errors are built with `appError(id, params)` (app-error.ts); the params a template
 * needs are checked by the type system. test/unit/errors/messages.test.ts checks that every message is used and
 * every code has one.
 */
import type { ErrorCode } from './registry.ts';

/** A template too long for one line, in parts, typed as the one literal they make (so its `{name}`s stay typed). */
const parts = <A extends string, B extends string>(a: A, b: B) => `${a}${b}` as `${A}${B}`;

export const errorMessages = {
  // Reading the request
  BindFailed: { code: 'SerializationException', template: "Unable to bind to request '{dto}'" },
  BodyUnreadable: {
    code: 'SerializationException',
    template: "Could not deserialize 'application/json' request using {dto}: {reason}",
  },
  BodyUnreadableAs: {
    code: 'SerializationException',
    template: "Could not deserialize '{mediaType}' request using {dto}: {reason}",
  },
  BodyReadFailed: { code: 'SerializationException', template: 'The request body could not be read: {reason}' },
  BodyNotText: {
    code: 'SerializationException',
    template: 'The request body is not valid text in its declared charset.',
  },
  BodyEmptyNoEnvelope: {
    code: 'SerializationException',
    template: 'The request body is empty: a SOAP 1.2 Envelope is required.',
  },
  XmlTooComplex: { code: 'SerializationException', template: 'The request XML is too complex: {detail}' },
  XmlMalformed: { code: 'SerializationException', template: 'The request is not a well-formed XML document: {detail}' },
  EnvelopeWithoutBody: { code: 'SerializationException', template: 'The SOAP 1.2 Envelope has no Body.' },
  SoapBodyEmpty: { code: 'SerializationException', template: 'The SOAP Body is empty: no operation was requested.' },
  InvalidFields: { code: 'ArgumentException', template: '{first}' },
  CallbackTooLong: { code: 'ArgumentException', template: 'The JSONP callback name is longer than {max} characters' },
  ReportFigureTooLarge: {
    code: 'ArgumentException',
    template: parts(
      'A figure of the report is beyond ±{max}, the largest a report shows exactly (15 significant digits): ',
      'choose a shorter range or fewer locations.',
    ),
  },
  BatchAnswerTooLarge: {
    code: 'ArgumentException',
    template: parts(
      "The batch's answers pass the limit of {limit} bytes (MAX_BATCH_ANSWER_BYTES) at request {index}: ",
      'send fewer requests per batch.',
    ),
  },
  XlsxTooWide: {
    code: 'ArgumentException',
    template: 'The report has {width} columns; XLSX holds at most {max}: choose a shorter range or CSV.',
  },
  // Who may call
  ApiKeyRequired: {
    code: 'Unauthorized',
    template: parts(
      'An API key is required: send X-ApiKey, Authorization: Bearer (or Basic with the key as user name), ',
      'or the apikey query parameter.',
    ),
  },
  ApiKeyUnknownOrRevoked: { code: 'Unauthorized', template: 'The API key is unknown or revoked.' },
  CompanyForbidden: { code: 'Forbidden', template: 'The API key does not give access to company {companyId}.' },
  // What was asked for
  ReportNotFound: { code: 'NotFound', template: 'No such report: the link is unknown, altered or no longer valid.' },
  FormNotServed: {
    code: 'NotFound',
    template: "This resource has no '.{suffix}' form: end its path with {forms} instead (or use ?format= or Accept).",
  },
  MethodNotFound: {
    code: 'NotImplementedException',
    template: 'Could not find method named {verb}({name}) or Any({name}) on Service {service}Service',
  },
  OperationNotFound: {
    code: 'NotImplementedException',
    template: "The operation '{name}' does not exist for this service",
  },
  // Limits of the HTTP layer
  BodyTooLarge: { code: 'RequestEntityTooLarge', template: 'The request body is larger than the limit.' },
  BodyTooLargeBytes: {
    code: 'RequestEntityTooLarge',
    template: 'The request body is larger than the limit of {limit} bytes.',
  },
  BodyLimitExceeded: {
    code: 'RequestEntityTooLarge',
    template: "The request body exceeds its '{limit}' limit of {max}.",
  },
  UrlTooLong: { code: 'UriTooLong', template: 'The URL is {length} characters long; the limit is {limit}.' },
  BodyNotJson: { code: 'UnsupportedMediaType', template: 'The request body must be application/json.' },
  BodyEncodingUnsupported: { code: 'UnsupportedMediaType', template: '{reason}' },
  SoapContentTypeUnsupported: {
    code: 'UnsupportedMediaType',
    template: "Content-Type '{mediaType}' is not supported: send application/soap+xml (SOAP 1.2).",
  },
  ContentEncodingUnsupported: {
    code: 'UnsupportedMediaType',
    template: "Content-Encoding '{encoding}' is not supported.",
  },
  CharsetUnsupported: { code: 'UnsupportedMediaType', template: "charset '{charset}' is not supported." },
  // SOAP versions
  Soap11Unsupported: {
    code: 'VersionMismatch',
    template: 'SOAP 1.1 envelopes are not supported: this endpoint speaks SOAP 1.2 only.',
  },
  NotSoap11Envelope: {
    code: 'VersionMismatch',
    template: 'The root element is not a SOAP 1.1 Envelope (http://schemas.xmlsoap.org/soap/envelope/).',
  },
  Soap11NoOperation: {
    code: 'NotImplementedException',
    template: 'The SyncReply contract declares no operation: nothing is callable through SOAP 1.1.',
  },
  NotSoap12Envelope: {
    code: 'VersionMismatch',
    template: 'The root element is not a SOAP 1.2 Envelope (http://www.w3.org/2003/05/soap-envelope).',
  },
  // The service's side
  Unexpected: { code: 'Exception', template: 'An unexpected error occurred.' },
  RequestTimedOut: { code: 'RequestTimeout', template: 'The request did not complete within {ms} ms; retry later.' },
  StoreUnavailable: { code: 'StoreUnavailable', template: 'The ledger store is unavailable; retry later.' },
} as const satisfies Record<string, { code: ErrorCode; template: string }>;

export type MessageId = keyof typeof errorMessages;

type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;
export type MessageParams<Id extends MessageId> = {
  [K in Placeholders<(typeof errorMessages)[Id]['template']>]: string | number;
};

/** The message `id` with its `{name}` parts filled in. */
export function formatMessage<Id extends MessageId>(id: Id, params: MessageParams<Id>): string {
  const values = params as Record<string, string | number>;
  return errorMessages[id].template.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
}
