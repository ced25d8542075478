/**
 * Runs a list of request steps (Express middleware functions) as one middleware, in order, with Express 5's rules
 * for each step: a step that throws or returns a rejected promise passes its error on, and an error skips the steps
 * after it. One layer of Express's router for the whole list instead of one per step (src/app.ts lists the steps).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function inOrder(steps: readonly RequestHandler[]): RequestHandler {
  if (steps.length === 1) return steps[0]!;
  return (req, res, done) => new StepRun(steps, req, res, done).next();
}

/** One request's pass through the steps: `next` is the function every step is given. */
class StepRun {
  private index = 0;
  readonly next: NextFunction;

  constructor(
    private readonly steps: readonly RequestHandler[],
    private readonly req: Request,
    private readonly res: Response,
    private readonly done: NextFunction,
  ) {
    this.next = (error?: unknown) => this.step(error);
  }

  private step(error: unknown): void {
    // As Express: a falsy value is no error.
    if (error) return this.done(error);
    if (this.index === this.steps.length) return this.done();
    const step = this.steps[this.index++]!;
    try {
      const result: unknown = step(this.req, this.res, this.next);
      if (result instanceof Promise) result.then(undefined, (thrown: unknown) => this.fail(thrown));
    } catch (thrown) {
      this.fail(thrown);
    }
  }

  private fail(thrown: unknown): void {
    this.done(thrown ?? new Error('Rejected promise'));
  }
}
