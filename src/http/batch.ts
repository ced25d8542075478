/**
 * ServiceStack's auto-batched requests (`/{format}/reply/{Op}[]`), as a 4.5.14 host ran them: each request DTO in
 * order through the operation's one service; the first error stops the batch and is the answer, with
 * `X-AutoBatch-Completed` set to that request's index; otherwise the list of responses, with the header set to their
 * count (left out for an empty batch, as 4.5 left it out). Between items the batch yields to the event loop (other
 * requests, /health and the request's time-out run) and stops once the request's signal is aborted; the answers
 * together are bounded in bytes (MAX_BATCH_ANSWER_BYTES): the one that passes the bound stops the batch as an error.
 */
import type { Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dtoOf } from '../contract/service-result.ts';
import { appError } from '../errors/app-error.ts';

export const BATCH_COMPLETED_HEADER = 'X-AutoBatch-Completed';

export interface BatchLimits {
  /** Most bytes the batch's answers may total, each counted as its JSON (UTF-8). */
  maxAnswerBytes: number;
  /** The request's signal: aborted by its time-out. */
  signal?: AbortSignal;
}

/**
 * The responses of `dtos`, each answered by `answer` in turn; a thrown error, or the answer that takes the total past
 * `maxAnswerBytes`, leaves the header at its index. An aborted `signal` (the request's time-out) stops the batch with
 * its reason before the next item.
 */
export async function runBatch(
  res: Response,
  dtos: readonly Record<string, unknown>[],
  answer: (dto: Record<string, unknown>) => unknown,
  { maxAnswerBytes, signal }: BatchLimits,
): Promise<unknown[]> {
  const responses: unknown[] = [];
  let answerBytes = 0;
  for (const dto of dtos) {
    if (responses.length) await nextTurn();
    signal?.throwIfAborted(); // the time-out answered the request already
    try {
      const response = dtoOf(await answer(dto));
      answerBytes += Buffer.byteLength(JSON.stringify(response) ?? '');
      if (answerBytes > maxAnswerBytes)
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
