/**
 * The demo ledger's first load, run by a process of its own (src/ops/demo-seed-child.ts, the same program: the
 * compiled module under `npm start`, the source under tsx), so that what the load leaves behind (the generated rows,
 * DuckDB's working memory, which the allocator keeps) goes with that process and not into the server's idle memory.
 * A failure is the child's one sentence.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const CHILD = path.join(path.dirname(here), `demo-seed-child${path.extname(here)}`);

/** Loads the demo ledger into the configured store (this process's environment) if it holds no company. */
export function seedDemoInChildProcess(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, CHILD], {
      env: process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      said = (said + text).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) return resolve();
      reject(new Error(said.trim() || `the demo ledger's load stopped (${signal ?? `exit code ${code}`})`));
    });
  });
}
