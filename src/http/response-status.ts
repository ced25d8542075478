/** AppError → ServiceStack's ResponseStatus (member order ErrorCode, Message, StackTrace, Errors). */
import type { ErrorResponse, ResponseStatus } from '../contract/dtos.ts';
import type { AppError } from '../errors/app-error.ts';

export interface ResponseStatusOptions {
  debug: boolean;
  /** The request DTO's name, for the StackTrace header line. */
  dtoName: string;
  now?: Date;
  /**
   * True when the error was raised inside the service: 4.5 then wrote `Errors: []` when no field failed, while an
   * error raised before the service (binding, unknown operation, authentication) had no `Errors` key at all.
   */
  inService?: boolean;
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
    Errors:
      error.fieldErrors.length || options.inService
        ? error.fieldErrors.map((f) => ({ ErrorCode: f.errorCode, FieldName: f.fieldName, Message: f.message }))
        : undefined,
  };
}

export function toErrorResponse(error: AppError, options: ResponseStatusOptions): ErrorResponse {
  return { ResponseStatus: toResponseStatus(error, options) };
}
