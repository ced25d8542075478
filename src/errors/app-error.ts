import { errorMessages, formatMessage, type MessageId, type MessageParams } from './messages.ts';
import { errorRegistry, type ErrorCode } from './registry.ts';

/** One bad field: rendered as a ResponseStatus.Errors[] entry. */
export interface FieldError {
  errorCode: string;
  /** The field name exactly as the client sent it. */
  fieldName: string;
  message: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get status(): number {
    return errorRegistry[this.code].status;
  }

  get fault() {
    return errorRegistry[this.code].fault;
  }
}

export interface AppErrorOptions {
  fieldErrors?: FieldError[];
  cause?: unknown;
}

/** The AppError of message `id` (messages.ts): its code, the filled-in template, and any field errors or cause. */
export function appError<Id extends MessageId>(
  id: Id,
  ...[params, options]: keyof MessageParams<Id> extends never
    ? [params?: Record<string, never>, options?: AppErrorOptions]
    : [params: MessageParams<Id>, options?: AppErrorOptions]
): AppError {
  return new AppError(
    errorMessages[id].code,
    formatMessage(id, (params ?? {}) as MessageParams<Id>),
    options?.fieldErrors ?? [],
    options?.cause === undefined ? undefined : { cause: options.cause },
  );
}

/** Anything thrown becomes an AppError; unknown faults keep their cause but never expose their message. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error && error.name === 'StoreUnavailableError')
    return appError('StoreUnavailable', {}, { cause: error });
  return appError('Unexpected', {}, { cause: error });
}
