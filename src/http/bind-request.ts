/**
 * Runs the legacy binder for the resolved operation, before the request validator: the validator then checks
 * canonical, typed values, and the service receives one DTO (path variables, query and body merged, in the request
 * context). Bad values stop here with a SerializationException listing every bad field, as ServiceStack's
 * "Unable to bind to request" did.
 */
import type { NextFunction, Request, RequestHandler } from 'express';
import { Keywords, keywordText, keywordValue, RESERVED_QUERY_NAMES } from '../contract/keywords.ts';
import { appError, type FieldError } from '../errors/app-error.ts';
import { bindBody, bindPath, bindQuery, type BindingLimits } from './binding.ts';
import { resolvedContext, type ResolvedContext } from './request-context.ts';

type RawQuery = Record<string, string | string[] | undefined>;

/**
 * The host keywords of a query, names lower-cased: `jsconfig` as .NET's QueryString gave it to JsConfig.CreateScope
 * (every value joined by `,`: each one applies), the others' first value.
 */
function reservedOnly(query: RawQuery): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of RESERVED_QUERY_NAMES) {
    const text = name === Keywords.jsconfig ? keywordText(query, name) : keywordValue(query, name);
    if (text !== undefined) kept[name] = text;
  }
  return kept;
}

/** Express 5 recomputes req.query from the URL on every read; pin the bound object. */
function setQuery(req: Request, query: Record<string, unknown>): void {
  Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A batch (`/{format}/reply/{Op}[]`): each item bound by the operation's body plan, as one request's body is. An item
 * that is not an object refuses the batch (4.5 could not deserialize it either); a bad field is named `[index].Field`.
 */
function bindBatch(req: Request, context: ResolvedContext, next: NextFunction, limits: BindingLimits): void {
  const op = context.operation;
  const items: unknown = req.body;
  const unreadable = (reason: string) => next(appError('BodyUnreadable', { dto: `${op.requestDto}[]`, reason }));
  if (!Array.isArray(items)) return unreadable('the body must be an array of requests');
  if (items.length > limits.maxArrayItems)
    return unreadable(`the batch has more than ${limits.maxArrayItems} requests`);
  const bad = items.findIndex((item) => !isObject(item));
  if (bad !== -1) return unreadable(`request ${bad} of the batch is not an object`);
  const errors: FieldError[] = [];
  const dtos = (items as Record<string, unknown>[]).map((item, index) => {
    const bound = bindBody(item, op.binding.body!, undefined, limits, context.bodyFromDocument);
    for (const [field, sent] of Object.entries(bound.sentNames))
      context.sentNames[`[${index}].${field}`] = `[${index}].${sent}`;
    errors.push(...bound.errors.map((error) => ({ ...error, fieldName: `[${index}].${error.fieldName}` })));
    return bound.values;
  });
  if (errors.length) return next(appError('BindFailed', { dto: `${op.requestDto}[]` }, { fieldErrors: errors }));
  context.bound = { batch: dtos };
  req.body = dtos;
  setQuery(req, reservedOnly(req.query as RawQuery));
  next();
}

export function bindRequest(limits: BindingLimits): RequestHandler {
  return (req, res, next) => {
    const context = resolvedContext(res);
    if (!context) return next();
    const op = context.operation;
    if (op.batch) return bindBatch(req, context, next, limits);
    const plan = op.binding;
    const raw = req.query as RawQuery;

    // A request with a body binds the body alone: 4.5 ignored the query string of a JSON or form POST.
    const hasBody = plan.body !== undefined && req.body !== undefined;
    const bound = bindQuery(hasBody ? {} : raw, plan.body ?? plan.query, limits);
    if (plan.body && req.body !== undefined) {
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
        return next(appError('BodyUnreadable', { dto: op.requestDto, reason: 'the body must be a JSON object' }));
      }
      // A document (JSON, XML, JSV) binds by property; form fields (urlencoded, multipart) bind as the query does.
      if (context.bodyFromForm) bindQuery(req.body as Record<string, string | string[]>, plan.body, limits, bound);
      else bindBody(req.body as Record<string, unknown>, plan.body, bound, limits, context.bodyFromDocument);
    }
    // On a GET, a query value overrides a path variable, as 4.5 bound them (`/v1/echo/hello?Message=x` is "x").
    const sentOnPath: Record<string, string> = {};
    for (const field of plan.path) {
      const fromQuery = keywordValue(raw, field.name.toLowerCase());
      if (fromQuery !== undefined && fromQuery !== '') sentOnPath[field.name] = fromQuery;
      else if (field.name in context.params) sentOnPath[field.name] = context.params[field.name]!;
    }
    const fromPath = bindPath(sentOnPath, plan.path, limits);
    context.sentNames = { ...bound.sentNames, ...fromPath.sentNames };
    const errors = [...bound.errors, ...fromPath.errors];
    if (errors.length) {
      return next(appError('BindFailed', { dto: op.requestDto }, { fieldErrors: errors }));
    }
    const pathValues = fromPath.values;
    context.bound = { dto: { ...bound.values, ...pathValues } };
    if (plan.body) {
      req.body = bound.values;
      setQuery(req, reservedOnly(raw));
    } else {
      setQuery(req, { ...reservedOnly(raw), ...bound.values });
    }
    next();
  };
}
