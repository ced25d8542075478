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

/** Anything thrown becomes an AppError; unknown faults keep their cause but never expose their message. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error && error.name === 'StoreUnavailableError') {
    return new AppError('StoreUnavailable', 'The ledger store is unavailable; retry later.', [], { cause: error });
  }
  return new AppError('Exception', 'An unexpected error occurred.', [], { cause: error });
}
