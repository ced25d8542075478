/**
 * http/steps.ts runs a list of steps as one middleware with Express 5's rules: in order, an error (passed, thrown or
 * a rejected promise) skipping the rest to the caller's next, a falsy value passed to next being no error.
 */
import { expect } from 'chai';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { inOrder } from '../../../src/http/steps.ts';

const req = {} as Request;
const res = {} as Response;

function run(steps: RequestHandler[]): Promise<{ ran: string[]; error: unknown }> {
  const ran: string[] = [];
  const named = steps.map(
    (step, i): RequestHandler =>
      (rq, rs, next) => {
        ran.push(String(i));
        return step(rq, rs, next);
      },
  );
  return new Promise((resolve) =>
    inOrder(named)(req, res, ((error?: unknown) => resolve({ ran, error })) as NextFunction),
  );
}

describe('http/steps: a list of steps as one middleware', () => {
  const pass: RequestHandler = (_req, _res, next) => next();

  it('runs every step in order, then the next middleware', async () => {
    expect(await run([pass, pass, pass])).to.deep.equal({ ran: ['0', '1', '2'], error: undefined });
  });

  it('skips the steps after one that passes an error', async () => {
    const error = new Error('bad');
    expect(await run([pass, (_q, _s, next) => next(error), pass])).to.deep.equal({ ran: ['0', '1'], error });
  });

  it('passes on what a step throws, and what its promise rejects with', async () => {
    const thrown = new Error('thrown');
    const rejected = new Error('rejected');
    const throwing: RequestHandler = () => {
      throw thrown;
    };
    expect(await run([pass, throwing, pass])).to.deep.equal({ ran: ['0', '1'], error: thrown });
    expect(await run([async () => Promise.reject(rejected), pass])).to.deep.equal({ ran: ['0'], error: rejected });
  });

  it('reads a falsy value passed to next as no error, as Express does', async () => {
    expect(await run([(_q, _s, next) => next(null), pass])).to.deep.equal({ ran: ['0', '1'], error: undefined });
  });

  it('continues after a step that finishes later', async () => {
    const later: RequestHandler = (_q, _s, next) => void setImmediate(next);
    expect(await run([later, pass])).to.deep.equal({ ran: ['0', '1'], error: undefined });
  });
});
