/**
 * The requests the server sends itself before it reports ready (src/server.ts's warm-up: one per operation, most of
 * them without a key, so 401s) are not the users': the access log leaves them out. They carry a header whose value is
 * made anew by each process, so no caller can hide its own requests from the log with it.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const HEADER = 'x-warm-up';
const token = randomBytes(16).toString('hex');

/** The header the warm-up requests send. */
export const warmUpHeaders = (): Record<string, string> => ({ [HEADER]: token });

export const isWarmUpRequest = (req: IncomingMessage): boolean => req.headers[HEADER] === token;
