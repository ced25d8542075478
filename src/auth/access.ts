/**
 * Who is calling, and may they read this company. `authenticate()` runs once per request, early: it resolves the
 * presented API key to a Caller kept on res.locals (anonymous when no key is sent) and refuses a key that is
 * unknown or revoked (401). Operations whose openapi/ `security` requires a key get 401 without one: decided
 * here (WireContext.pendingError), delivered by `rejectPending()` after binding and validation, and in place of any error those raise, so
 * an anonymous caller learns nothing but the 401 while its request still exercises the pipeline (which is how
 * the start-up warm-up compiles the report routes' validators). Services then call
 * `requireCompanyAccess(caller, companyId)` (403 for another company).
 */
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors/app-error.ts';
import type { Caller } from '../services/caller.ts';
import type { LedgerStore } from '../store/ledger-store.ts';
import { wireContext } from '../http/wire-context.ts';
import { hashApiKey, presentedApiKey } from './api-keys.ts';
import type { AuthMode } from './auth-mode.ts';

export const WWW_AUTHENTICATE = 'Bearer realm="reporting", ApiKey header="X-ApiKey"';
/** Company names change rarely; echo reads them through this cache. */
const NAME_TTL_MS = 60_000;

const KEY_REQUIRED = 'An API key is required: send X-ApiKey, Authorization: Bearer (or Basic with the key as user name), or the apikey query parameter.';

export interface AuthenticateOptions {
  store: LedgerStore;
  /** AUTH (default `apikey`). */
  mode?: AuthMode;
  /** Name echoed to anonymous callers. */
  defaultCompanyName: string;
  /** True when the matched operation cannot be called without a key. */
  requiresKey?: (req: Request, res: Response) => boolean;
}

export function callerOf(res: Response): Caller {
  return (res.locals.caller as Caller | undefined) ?? { companyName: '', companyIds: [] };
}

export function unauthorized(res: Response | undefined, message: string): AppError {
  res?.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  return new AppError('Unauthorized', message);
}

/** Throws 401 for an anonymous caller and 403 when the caller's key does not cover `companyId`. */
export function requireCompanyAccess(caller: Caller, companyId: number, res?: Response): void {
  if (caller.anyCompany) return;
  if (caller.keyId === undefined) throw unauthorized(res, KEY_REQUIRED);
  if (!caller.companyIds.includes(companyId)) {
    throw new AppError('Forbidden', `The API key does not give access to company ${companyId}.`);
  }
}

export function authenticate({ store, mode = 'apikey', defaultCompanyName, requiresKey }: AuthenticateOptions): RequestHandler {
  if (mode === 'none') {
    // As a host without an auth feature: credentials are not read, every caller reads every company.
    return (_req, res, next) => {
      res.locals.caller = { companyName: defaultCompanyName, companyIds: [], anyCompany: true } satisfies Caller;
      next();
    };
  }
  const names = new Map<number, string>();
  let namesAt = -Infinity;
  const companyName = async (companyId: number | undefined): Promise<string> => {
    if (companyId === undefined) return defaultCompanyName;
    if (!names.has(companyId) || performance.now() - namesAt > NAME_TTL_MS) {
      const companies = await store.listCompanies();
      names.clear();
      for (const c of companies) names.set(c.id, c.name);
      namesAt = performance.now();
    }
    return names.get(companyId) ?? defaultCompanyName;
  };

  return async (req, res, next) => {
    try {
      const key = presentedApiKey(req.headers, req.originalUrl);
      if (key === undefined) {
        res.locals.caller = { companyName: defaultCompanyName, companyIds: [] } satisfies Caller;
        if (requiresKey?.(req, res)) wireContext(res).pendingError = unauthorized(res, KEY_REQUIRED);
        return next();
      }
      const record = key ? await store.findApiKeyByHash(hashApiKey(key)) : undefined;
      if (!record || record.revokedAt) throw unauthorized(res, 'The API key is not valid.');
      res.locals.caller = {
        companyName: await companyName(record.companyIds[0]),
        companyIds: record.companyIds,
        keyId: record.id,
      } satisfies Caller;
      next();
    } catch (error) {
      next(error);
    }
  };
}
