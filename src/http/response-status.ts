/** AppError → ServiceStack's ResponseStatus (member order ErrorCode, Message, StackTrace, Errors). */
import type { ErrorResponse, ResponseStatus } from '../contract/dtos.ts';
import type { AppError } from '../errors/app-error.ts';

export interface ResponseStatusOptions {
  debug: boolean;
  /** The request DTO's name, for the StackTrace header line. */
  dtoName: string;
  now?: Date;
}

/** ServiceStack's DebugMode StackTrace: `[<Dto>: <UtcNow>]:` then the exception as text. */
function stackTrace(error: Error, { dtoName, now = new Date() }: ResponseStatusOptions): string {
  return `[${dtoName}: ${now.toISOString()}]:\n${error.stack ?? `${error.name}: ${error.message}`}`;
}

export function toResponseStatus(error: AppError, options: ResponseStatusOptions): ResponseStatus {
  const cause = error.cause instanceof Error ? error.cause : undefined;
  return {
    ErrorCode: error.code,
    Message: options.debug && cause && error.code === 'Exception' ? cause.message : error.message,
    StackTrace: options.debug ? stackTrace(cause ?? error, options) : undefined,
    Errors: error.fieldErrors.map((f) => ({ ErrorCode: f.errorCode, FieldName: f.fieldName, Message: f.message })),
  };
}

export function toErrorResponse(error: AppError, options: ResponseStatusOptions): ErrorResponse {
  return { ResponseStatus: toResponseStatus(error, options) };
}
