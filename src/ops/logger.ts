/**
 * The process's logger: pino, JSON lines to stdout (or another destination), with the request headers that carry
 * credentials redacted wherever a line includes them. Stdout is written asynchronously (pino's sonic-boom, flushed
 * synchronously when the process exits): a synchronous write per access-log line was a system call on every request.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: ['req.headers.authorization', 'req.headers["x-apikey"]', 'req.headers.cookie'] };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
