/** The project's CLIs as `npm run <name>` runs them in the repository (tsx scripts/<name>.ts), without a terminal. */
import { execFile } from 'node:child_process';
import { REPO_ROOT } from '../../scripts/lib/server-process.ts';

/** How a command ended: its exit code (0 for success) and all it wrote. */
export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run <name> -- ...args` until it exits, with no DATABASE_URL or DEBUG of the machine's but those of `env`. */
export function cli(name: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `scripts/${name}.ts`, ...args],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: '', DEBUG: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}
