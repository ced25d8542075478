/**
 * A fixed list of request steps run in order, without a router: what each step of an operation's plan is was decided
 * when the plan was compiled, so nothing is matched per step (Express 5's router matches every layer's path against
 * every request and chains each through its own `next`). A step has Express's middleware shape, so the library
 * middlewares the plan is made of run unchanged; an error passed to `next`, thrown, or rejected by an async step goes to
 * `fail`, as the router's error handling would take it.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

export type Step = RequestHandler;
export type StepChain = (req: Request, res: Response, done?: NextFunction) => void;

const ignore = () => undefined;

export function compileSteps(steps: readonly Step[], fail: ErrorRequestHandler): StepChain {
  const count = steps.length;
  return (req, res, done) => {
    let index = 0;
    const next: NextFunction = (error?: unknown) => {
      if (error !== undefined && error !== null && error !== 'route' && error !== 'router') return fail(error, req, res, ignore);
      if (index === count) return done?.();
      const step = steps[index++]!;
      try {
        const result = step(req, res, next) as unknown;
        if (result instanceof Promise) result.then(undefined, (rejected: unknown) => next(rejected ?? new Error('step rejected')));
      } catch (thrown) {
        next(thrown ?? new Error('step threw'));
      }
    };
    next();
  };
}
