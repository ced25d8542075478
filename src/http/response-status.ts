/** AppError → ServiceStack's ResponseStatus (member order ErrorCode, Message, StackTrace, Errors). */
import type { ErrorResponse, ResponseStatus } from '../contract/dtos.ts';
import type { AppError } from '../errors/app-error.ts';

export function toResponseStatus(error: AppError, debug: boolean): ResponseStatus {
  const cause = error.cause instanceof Error ? error.cause : undefined;
  return {
    ErrorCode: error.code,
    Message: debug && cause && error.code === 'Exception' ? cause.message : error.message,
    StackTrace: debug ? (cause ?? error).stack : undefined,
    Errors: error.fieldErrors.map((f) => ({ ErrorCode: f.errorCode, FieldName: f.fieldName, Message: f.message })),
  };
}

export function toErrorResponse(error: AppError, debug: boolean): ErrorResponse {
  return { ResponseStatus: toResponseStatus(error, debug) };
}
