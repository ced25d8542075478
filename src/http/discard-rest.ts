import type { Request } from 'express';

/**
 * After an early answer (413, 415), the unread rest of the body is discarded (not buffered) and the connection is
 * closed; a client that keeps sending is cut off after `graceMs`.
 */
export function discardRest(req: Request, graceMs = 1000): void {
  if (req.readableEnded || req.complete) return;
  req.resume();
  const timer = setTimeout(() => {
    if (!req.complete) req.socket.destroy();
  }, graceMs);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
}
