/**
 * The service's request listener. Every request passes the edge once (its log line, metrics, security headers,
 * limits, time-out, method override, and the lookup of its contract operation); a request that resolved to an
 * operation then runs that operation's compiled plan, and anything else (health, docs, SOAP, metadata pages, the
 * legacy 404) goes to the Express app. A contract operation so never enters Express's router: its steps were
 * chosen when its plan was compiled.
 *
 * Plans use Express's request and response (res.send, req.query, req.ip, ...): the front door prepares them as
 * Express's own app.handle does.
 */
import type { ErrorRequestHandler, Express, NextFunction, Request, Response } from 'express';
import { IncomingMessage, ServerResponse, createServer, type RequestListener, type Server } from 'node:http';
import { applyPendingHeaders } from './pending-headers.ts';
import { contextOf } from './request-context.ts';
import { compileSteps, type Step, type StepChain } from './step-chain.ts';

export interface FrontDoorParts {
  /** Everything that is not a contract operation, with its own error handler and 404. */
  app: Express;
  /** Steps every request passes; the last one resolves the request's operation into its context. */
  edge: readonly Step[];
  /** Each operation's compiled plan, by operationId. */
  plans: ReadonlyMap<string, StepChain>;
  /** Renders an error raised by the edge. */
  fail: ErrorRequestHandler;
}

/** The listener; it keeps the Express app as its prototype, so `listen()`, settings and locals are the app's. */
export function createFrontDoor({ app, edge, plans, fail }: FrontDoorParts): Express {
  const { request, response } = app;
  // Express's own entry for a request (routing, its 404 and error handlers); not in its type declarations.
  const handle = (app as unknown as { handle(req: Request, res: Response, next?: NextFunction): void }).handle.bind(app);
  const runEdge = compileSteps(edge, fail);
  const frontDoor = function frontDoor(incoming: IncomingMessage, outgoing: ServerResponse, next?: NextFunction): void {
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    // A server made by expressServer() makes them with these prototypes already (changing one costs on every request).
    if (!request.isPrototypeOf(req)) Object.setPrototypeOf(req, request);
    if (!response.isPrototypeOf(res)) Object.setPrototypeOf(res, response);
    res.locals ??= Object.create(null) as Response['locals'];
    req.originalUrl ??= req.url;
    req.baseUrl ??= '';
    runEdge(req, res, () => {
      const operation = contextOf(res).operation;
      const plan = operation && plans.get(operation.operationId);
      if (plan) return plan(req, res);
      applyPendingHeaders(res); // the app's handlers set their own headers one by one
      handle(req, res, next);
    });
  };
  Object.setPrototypeOf(frontDoor, app);
  return frontDoor as unknown as Express;
}

/**
 * A node:http server for the front door whose requests and responses are made with the app's Express prototypes, as
 * the front door (and Express's app.handle) would otherwise set them on every request.
 */
export function expressServer(app: Express): Server {
  const { request, response } = app;
  class ServiceRequest extends IncomingMessage {}
  class ServiceResponse extends ServerResponse {}
  Object.setPrototypeOf(ServiceRequest.prototype, request);
  Object.setPrototypeOf(ServiceResponse.prototype, response);
  return createServer({ IncomingMessage: ServiceRequest, ServerResponse: ServiceResponse as typeof ServerResponse }, app as unknown as RequestListener);
}
