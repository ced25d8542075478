/**
 * The process's logger: pino, with the request headers that carry credentials redacted wherever a line includes them.
 * Two forms (LOG_FORMAT): JSON lines for machines (the default when stdout is not a terminal: systemd, pipes, files),
 * written asynchronously (pino's sonic-boom, flushed synchronously when the process exits: a synchronous write per
 * access-log line was a system call on every request); and, on a terminal, readable lines through pino-pretty (a
 * stream in this process, loaded only then), an access line as `GET /v1/echo/hi 200 3 ms`.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyLogs, type LogFormat } from './log-format.ts';

interface AccessLine {
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/** pino-pretty's stream for a terminal: time, level, message; an access line in one line. */
function prettyStream(colorize: boolean): DestinationStream {
  const { build } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return build({
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,req,res,reqId,responseTime',
    messageFormat: (log, messageKey) => {
      const { req, res, responseTime } = log as AccessLine;
      return req?.method && res
        ? `${req.method} ${req.url} ${res.statusCode} ${responseTime} ms`
        : String(log[messageKey] ?? '');
    },
  });
}

export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options = { level, redact: ['req.headers.authorization', 'req.headers["x-apikey"]', 'req.headers.cookie'] };
  if (destination) return pino(options, destination);
  return pino(
    options,
    prettyLogs(format) ? prettyStream(process.stdout.isTTY === true) : pino.destination({ dest: 1, sync: false }),
  );
}
