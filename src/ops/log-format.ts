/** How log lines are written (LOG_FORMAT): `auto` = readable on a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Whether lines are written for a human: `pretty`, or `auto` on a terminal. */
export function prettyLogs(format: LogFormat, stdoutIsTerminal = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTerminal);
}
