/**
 * Errors raised before a service runs (the request validators, the body parsers), turned into AppErrors with one
 * field entry per bad field, named as the client sent it.
 */
import { appError, AppError, type FieldError } from '../errors/app-error.ts';

/** One error of a request validator, as express-openapi-validator reports it (`/query/CompanyId`, `required...`). */
export interface ValidatorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface LibraryError extends Error {
  status?: number;
  type?: string;
  errors?: ValidatorItem[];
}

function isLibraryError(error: unknown): error is LibraryError {
  return error instanceof Error && !(error instanceof AppError) && typeof (error as LibraryError).status === 'number';
}

const LOCATIONS = ['query', 'body', 'path', 'params', 'headers'];

/**
 * `/query/Filters/0` or `.body.CompanyId` → `Filters` (the top-level field); a batch item's `/body/1/CompanyId` →
 * `[1].CompanyId`; a bare URL path names no field.
 */
function fieldOf(path: string | undefined): string {
  const parts = (path ?? '').split(/[./[\]]+/).filter(Boolean);
  if (!LOCATIONS.includes(parts[0] ?? '')) return '';
  if (parts[0] === 'body' && /^\d+$/.test(parts[1] ?? ''))
    return parts[2] ? `[${parts[1]}].${parts[2]}` : `[${parts[1]}]`;
  return parts[1] ?? '';
}

function validatorCode(errorCode: string | undefined): string {
  const keyword = (errorCode ?? 'invalid').split('.')[0] ?? 'invalid';
  return keyword.charAt(0).toUpperCase() + keyword.slice(1);
}

/**
 * A missing required field, worded as the original's FluentValidation NotEmpty rule (`'Company Id' must not be
 * empty.`).
 */
function notEmpty(field: string): FieldError {
  const displayName = field.replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return { errorCode: 'NotEmpty', fieldName: field, message: `'${displayName}' must not be empty.` };
}

/** A request validator's errors as one 400, each field named as the client sent it. */
export function fromValidatorItems(items: ValidatorItem[], sentNames: Record<string, string>, summary = ''): AppError {
  const fieldErrors: FieldError[] = items.map((item) => {
    const canonical = fieldOf(item.path);
    if (canonical && item.errorCode?.startsWith('required')) return notEmpty(canonical);
    const sent = sentNames[canonical] ?? canonical;
    const message = sent ? `'${sent}' ${item.message ?? 'is invalid'}` : (item.message ?? 'is invalid');
    return { errorCode: validatorCode(item.errorCode), fieldName: sent, message };
  });
  return appError('InvalidFields', { first: fieldErrors[0]?.message ?? summary }, { fieldErrors });
}

export function fromLibraryError(
  error: unknown,
  sentNames: Record<string, string>,
  dtoName: string,
): AppError | undefined {
  if (!isLibraryError(error)) return undefined;
  switch (error.type) {
    case 'entity.parse.failed':
      return appError('BodyUnreadable', { dto: dtoName, reason: error.message });
    case 'entity.too.large':
      return appError('BodyTooLarge');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return appError('BodyEncodingUnsupported', { reason: error.message });
  }
  if (error.status === 415) return appError('BodyNotJson');
  if (error.status === 413) return appError('BodyTooLarge');
  if (error.status === 400 && error.errors) return fromValidatorItems(error.errors, sentNames, error.message);
  // The body parser's other client errors: a corrupt gzip/deflate/br body (zlib's message), an aborted or short body.
  if (error.status === 400) return appError('BodyReadFailed', { reason: error.message });
  return undefined;
}
