/**
 * Who is calling, and may they read this company. `authenticate()` runs once per request, early: it resolves the
 * presented API key to a Caller (`callerOf(res)`; anonymous when no key is sent) and refuses a key that is unknown
 * or revoked (401). An anonymous call to an operation whose openapi/ `security` requires a key is refused with 401
 * here, before its body is read, bound or validated (so an anonymous caller learns nothing but the 401; the unread
 * body is discarded within a grace period). The one authorisation rule every service applies is
 * `requireCompanyAccess(caller, companyId)`: 403 unless the caller's key covers the company.
 */
import type { Request, RequestHandler, Response } from 'express';
import { appError, type AppError } from '../errors/app-error.ts';
import { discardRest } from '../http/discard-rest.ts';
import type { LedgerStore } from '../store/ledger/ledger-store.ts';
import { hashApiKey, presentedApiKey } from './api-keys.ts';
import type { AuthMode } from './auth-mode.ts';
import type { Caller } from './caller.ts';

export const WWW_AUTHENTICATE = 'Bearer realm="reporting", ApiKey header="X-ApiKey"';

export interface AuthenticateOptions {
  store: LedgerStore;
  /** AUTH (default `apikey`). */
  mode?: AuthMode;
  /** Name echoed to anonymous callers. */
  defaultCompanyName: string;
  /** True when the request's operation cannot be called without a key. */
  requiresKey(req: Request, res: Response): boolean;
}

const ANONYMOUS: Caller = { companyName: '', companyIds: [] };

export function callerOf(res: Response): Caller {
  return (res.locals.caller as Caller | undefined) ?? ANONYMOUS;
}

export function unauthorized(res: Response | undefined, id: 'ApiKeyRequired' | 'ApiKeyUnknownOrRevoked'): AppError {
  res?.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  return appError(id);
}

/** The one authorisation rule: 403 unless the caller's key covers `companyId` (or AUTH=none lets anyone read any). */
export function requireCompanyAccess(caller: Caller, companyId: number): void {
  if (caller.anyCompany) return;
  if (!caller.companyIds.includes(companyId)) {
    throw appError('CompanyForbidden', { companyId });
  }
}

export function authenticate({
  store,
  mode = 'apikey',
  defaultCompanyName,
  requiresKey,
}: AuthenticateOptions): RequestHandler {
  if (mode === 'none') {
    // As a host without an auth feature: credentials are not read, every caller reads every company.
    return (_req, res, next) => {
      res.locals.caller = { companyName: defaultCompanyName, companyIds: [], anyCompany: true } satisfies Caller;
      next();
    };
  }
  // From the catalog reports read (kept by the store, renewed by every import it commits or hears of), so echo names
  // the company as its reports do from the moment an import commits.
  const companyName = async (companyId: number | undefined): Promise<string> => {
    if (companyId === undefined) return defaultCompanyName;
    return (await store.getCatalog(companyId))?.company.name ?? defaultCompanyName;
  };

  const asKeyHolder = async (res: Response, key: string): Promise<void> => {
    const record = key ? await store.findApiKeyByHash(hashApiKey(key)) : undefined;
    if (!record || record.revokedAt) throw unauthorized(res, key ? 'ApiKeyUnknownOrRevoked' : 'ApiKeyRequired');
    res.locals.caller = {
      companyName: await companyName(record.companyIds[0]),
      companyIds: record.companyIds,
      keyId: record.id,
    } satisfies Caller;
  };

  // Synchronous for an anonymous call (no store to ask), so most echoes do not wait a turn of the event loop.
  return (req, res, next) => {
    let key: string | undefined;
    try {
      key = presentedApiKey(req.headers, req.originalUrl);
      if (key === undefined) {
        res.locals.caller = { companyName: defaultCompanyName, companyIds: [] } satisfies Caller;
        if (!requiresKey(req, res)) return next();
        discardRest(req);
        return next(unauthorized(res, 'ApiKeyRequired'));
      }
    } catch (error) {
      return next(error);
    }
    asKeyHolder(res, key).then(() => next(), next);
  };
}

/** Any valid (known, unrevoked) API key, whatever its companies: for operations endpoints such as /metrics. */
export function requireAnyApiKey(store: Pick<LedgerStore, 'findApiKeyByHash'>): RequestHandler {
  return async (req, res, next) => {
    try {
      const key = presentedApiKey(req.headers, req.url);
      const record = key ? await store.findApiKeyByHash(hashApiKey(key)) : undefined;
      next(
        record && !record.revokedAt ? undefined : unauthorized(res, key ? 'ApiKeyUnknownOrRevoked' : 'ApiKeyRequired'),
      );
    } catch (error) {
      next(error);
    }
  };
}
