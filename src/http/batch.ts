/**
 * ServiceStack's auto-batched requests (`/{format}/reply/{Op}[]`), as a 4.5.14 host ran them: each request DTO in
 * order through the operation's one service; the first error stops the batch and is the answer, with
 * `X-AutoBatch-Completed` set to that request's index; otherwise the list of responses, with the header set to their
 * count (left out for an empty batch, as 4.5 left it out). Between items the batch yields to the event loop (other
 * requests, /health and the request's time-out run) and stops once the request's signal is aborted.
 */
import type { Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dtoOf } from '../contract/service-result.ts';

export const BATCH_COMPLETED_HEADER = 'X-AutoBatch-Completed';

/**
 * The responses of `dtos`, each answered by `answer` in turn; a thrown error leaves the header at its index. An
 * aborted `signal` (the request's time-out) stops the batch with its reason before the next item.
 */
export async function runBatch(
  res: Response,
  dtos: readonly Record<string, unknown>[],
  answer: (dto: Record<string, unknown>) => unknown,
  signal?: AbortSignal,
): Promise<unknown[]> {
  const responses: unknown[] = [];
  for (const dto of dtos) {
    if (responses.length) await nextTurn();
    signal?.throwIfAborted(); // the time-out answered the request already
    try {
      responses.push(dtoOf(await answer(dto)));
    } catch (error) {
      if (!res.headersSent) res.setHeader(BATCH_COMPLETED_HEADER, String(responses.length));
      throw error;
    }
  }
  if (responses.length) res.setHeader(BATCH_COMPLETED_HEADER, String(responses.length));
  return responses;
}
