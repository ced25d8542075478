/**
 * ServiceStack's auto-batched requests (`/{format}/reply/{Op}[]`), as a 4.5.14 host ran them: each request DTO in
 * order through the operation's one service, the first error the answer, `X-AutoBatch-Completed` the count that ran
 * (left out for an empty batch). Between items it yields to the event loop and stops once the request's signal is
 * aborted; the answer's list is bounded in the bytes it takes written in its format (MAX_BATCH_ANSWER_BYTES).
 */
import type { Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dtoOf } from '../contract/service-result.ts';
import { appError } from '../errors/app-error.ts';

export const BATCH_COMPLETED_HEADER = 'X-AutoBatch-Completed';

export interface BatchLimits {
  /** Most bytes the batch's answer may take, as `listBytes` counts them. */
  maxAnswerBytes: number;
  /** Adds a response to the answer's list; gives the bytes of the list so far as it will be written. */
  listBytes: (response: unknown) => number;
  /** The request's signal: aborted by its time-out. */
  signal?: AbortSignal;
}

/**
 * The responses of `dtos`, each answered by `answer` in turn; a thrown error, or the answer that takes the list past
 * `maxAnswerBytes`, leaves the header at its index. An aborted `signal` (the request's time-out) stops the batch with
 * its reason before the next item.
 */
export async function runBatch(
  res: Response,
  dtos: readonly Record<string, unknown>[],
  answer: (dto: Record<string, unknown>) => unknown,
  { maxAnswerBytes, listBytes, signal }: BatchLimits,
): Promise<unknown[]> {
  const responses: unknown[] = [];
  for (const dto of dtos) {
    if (responses.length) await nextTurn();
    signal?.throwIfAborted(); // the time-out answered the request already
    try {
      const response = dtoOf(await answer(dto));
      if (listBytes(response) > maxAnswerBytes)
        throw appError('BatchAnswerTooLarge', { limit: maxAnswerBytes, index: responses.length });
      responses.push(response);
    } catch (error) {
      if (!res.headersSent) res.setHeader(BATCH_COMPLETED_HEADER, String(responses.length));
      throw error;
    }
  }
  if (responses.length) res.setHeader(BATCH_COMPLETED_HEADER, String(responses.length));
  return responses;
}
