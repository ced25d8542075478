/**
 * Every error the service can answer with: its ErrorCode (the ServiceStack exception short name where the
 * original host had one), HTTP status and SOAP 1.2 fault code. Each edge renders an AppError its own way
 * (ResponseStatus for JSON/JSONP, env:Fault for SOAP).
 */
export type SoapFaultCode = 'VersionMismatch' | 'MustUnderstand' | 'Sender' | 'Receiver';

export interface ErrorDefinition {
  status: number;
  fault: SoapFaultCode;
  description: string;
}

export const errorRegistry = {
  SerializationException: {
    status: 400,
    fault: 'Sender',
    description: 'A field or the body could not be read (bad value, malformed JSON or XML).',
  },
  ArgumentException: {
    status: 400,
    fault: 'Sender',
    description: 'A field has a value the operation refuses (unknown company, bad range, ...).',
  },
  Unauthorized: {
    status: 401,
    fault: 'Sender',
    description: 'No API key was sent where one is required, or the key is unknown or revoked.',
  },
  Forbidden: {
    status: 403,
    fault: 'Sender',
    description: "The API key's scope does not include the requested company.",
  },
  NotFound: { status: 404, fault: 'Sender', description: 'No such resource.' },
  NotImplementedException: {
    status: 405,
    fault: 'Sender',
    description: 'The operation does not exist for this service or verb.',
  },
  RequestEntityTooLarge: { status: 413, fault: 'Sender', description: 'The request body is larger than the limit.' },
  UriTooLong: {
    status: 414,
    fault: 'Sender',
    description: 'The URL (path and query string) is longer than the limit.',
  },
  UnsupportedMediaType: {
    status: 415,
    fault: 'Sender',
    description: 'The request body has a content type the endpoint does not read.',
  },
  VersionMismatch: { status: 500, fault: 'VersionMismatch', description: 'The SOAP envelope is not SOAP 1.2.' },
  Exception: { status: 500, fault: 'Receiver', description: 'An unexpected fault in the service.' },
  NotImplemented: { status: 501, fault: 'Receiver', description: 'The operation is not available on this deployment.' },
  RequestTimeout: {
    status: 503,
    fault: 'Receiver',
    description: 'The request took longer than the time-out; retry later.',
  },
  StoreUnavailable: { status: 503, fault: 'Receiver', description: 'The ledger store cannot be reached; retry later.' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorRegistry;
