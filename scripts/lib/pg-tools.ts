/**
 * PostgreSQL's command-line tools (initdb, pg_basebackup, pg_ctl) as the test servers run them: as the `postgres` user
 * when root (runuser), each bounded in time. A tool that has not finished in time is killed with what it started (its
 * own process group), and the error names it, the bound and what it wrote to stderr.
 */
import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';

export const PG_BIN_DIR = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** How long each tool may take by default: a fresh cluster, a base backup of a test server, pg_ctl's own -t 60. */
export const PG_TOOL_TIMEOUT_MS = { initdb: 120_000, pg_basebackup: 300_000, pg_ctl: 90_000 } as const;
export type PgTool = keyof typeof PG_TOOL_TIMEOUT_MS;

/** The most of a tool's stderr kept for its error. */
const MAX_STDERR = 8192;

export class PgToolTimeout extends Error {
  override readonly name = 'PgToolTimeout';
}

/** Runs `tool` with `args` (as `postgres` when root) and resolves with its stdout; rejects on failure or overrun. */
export function runPgTool(
  tool: PgTool,
  args: string[],
  { timeoutMs = PG_TOOL_TIMEOUT_MS[tool] }: { timeoutMs?: number } = {},
): Promise<string> {
  const bin = join(PG_BIN_DIR, tool);
  const [file, argv] = userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (stdout = (stdout + d).slice(-MAX_STDERR)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr = (stderr + d).slice(-MAX_STDERR)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL'); // the tool and whatever it started (runuser's child too)
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const said = stderr.trim() === '' ? '' : `: ${stderr.trim()}`;
      if (timedOut)
        reject(new PgToolTimeout(`${tool} did not finish within ${timeoutMs / 1000} s and was killed${said}`));
      else if (code === 0) resolve(stdout);
      else reject(new Error(`${tool} ${args.join(' ')} failed (${signal ?? `exit code ${code}`})${said}`));
    });
  });
}
