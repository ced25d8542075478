/**
 * A repository script run as users run it (tsx) in a child Node, timed, with its output and peak RSS (peak-rss.mjs).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.ts';

export interface ScriptRun {
  ms: number;
  peakMiB: number;
  output: string;
}

/**
 * Runs `script` (a path under the repository) with `args`, `env` added to this process's; rejects when it exits
 * non-zero.
 */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ScriptRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', join(REPO_ROOT, 'scripts/bench/peak-rss.mjs'), join(REPO_ROOT, script), ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      const kib = Number(/peak-rss-kib (\d+)/.exec(output)?.[1] ?? NaN);
      if (code !== 0) reject(new Error(`${script} exited ${code}:\n${output.slice(-2000)}`));
      else resolve({ ms, peakMiB: kib / 1024, output });
    });
  });
}
