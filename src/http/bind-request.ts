/**
 * Runs the legacy binder for the matched operation, before express-openapi-validator: the validator then
 * checks canonical, typed values, and the service receives one DTO. Bad values stop here with a
 * SerializationException listing every bad field, as ServiceStack's "Unable to bind to request" did.
 */
import type { RequestHandler, Request, Response } from 'express';
import type { OperationPlan } from '../contract/binding-plan.ts';
import { AppError } from '../errors/app-error.ts';
import { bindBody, bindQuery, type BindingLimits } from './binding.ts';
import { MAX_CALLBACK_CHARS } from './jsonp.ts';
import { Keywords, RESERVED_QUERY_NAMES, keywordValue } from './keywords.ts';
import { wireContext } from './wire-context.ts';

type RawQuery = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function reservedOnly(query: RawQuery): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    const text = first(value);
    if (RESERVED_QUERY_NAMES.has(key.toLowerCase()) && text !== undefined) kept[key.toLowerCase()] = text;
  }
  return kept;
}

/** Express 5 recomputes req.query from the URL on every read; pin the bound object. */
function setQuery(req: Request, query: Record<string, unknown>): void {
  Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
}

/** Before the body is read: which operation this is, and the JSONP callback, so that even a body error renders right. */
export function identifyOperation(planFor: (req: Request, res: Response) => OperationPlan | undefined): RequestHandler {
  return (req, res, next) => {
    const wire = wireContext(res);
    const callback = keywordValue(req.query as RawQuery, Keywords.callback);
    wire.operation = planFor(req, res);
    if (wire.operation) wire.dtoName = wire.operation.dtoName;
    if (callback && callback.length > MAX_CALLBACK_CHARS) {
      const message = `The JSONP callback name is longer than ${MAX_CALLBACK_CHARS} characters`;
      return next(new AppError('ArgumentException', message, [{ errorCode: 'ArgumentException', fieldName: Keywords.callback, message }]));
    }
    if (callback) wire.callback = callback;
    next();
  };
}

export function bindRequest(limits: BindingLimits): RequestHandler {
  return (req, res, next) => {
    const wire = wireContext(res);
    const plan = wire.operation;
    if (!plan) return next();
    const raw = req.query as RawQuery;

    const bound = bindQuery(raw, plan.body ?? plan.query, limits);
    if (plan.body && req.body !== undefined) {
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
        return next(new AppError('SerializationException', `Could not deserialize 'application/json' request using ${plan.dtoName}: the body must be a JSON object`));
      }
      bindBody(req.body as Record<string, unknown>, plan.body, bound, limits);
    }
    wire.sentNames = bound.sentNames;
    if (bound.errors.length) {
      return next(new AppError('SerializationException', `Unable to bind to request '${plan.dtoName}'`, bound.errors));
    }
    if (plan.body) {
      req.body = bound.values;
      setQuery(req, reservedOnly(raw));
    } else {
      setQuery(req, { ...reservedOnly(raw), ...bound.values });
    }
    next();
  };
}
