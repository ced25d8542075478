/**
 * Start-up to ready of the real process, as a user starts it: the production build (`node dist/main.js`) against
 * the sources through tsx (`tsx src/main.ts`, the development start), measured in the same run over the same
 * DuckDB file (created by a first, unmeasured start). "Ready" is the moment the process prints its
 * `listening on` line, which main.ts writes after the warm-up requests, i.e. when /ready would first answer 200
 * with compiled validators. Runs alternate between the two commands; the table gives median and best.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmtMs, fmtRatio, median, table } from './stats.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

const COMMANDS = {
  'node dist/main.js': [process.execPath, 'dist/main.js'],
  'tsx src/main.ts': [process.execPath, '--import', 'tsx', 'src/main.ts'],
} as const;
type Command = keyof typeof COMMANDS;

function startOnce(command: Command, dataDir: string): Promise<number> {
  const [bin, ...args] = COMMANDS[command];
  const { NODE_OPTIONS: _inherited, ...env } = process.env;
  const started = performance.now();
  const child = spawn(bin, args, {
    cwd: ROOT,
    env: { ...env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} exited ${code} before it was ready: ${out}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      if (!/listening on /.test(out)) return;
      const elapsed = performance.now() - started;
      child.removeAllListeners('exit');
      child.once('exit', () => resolve(elapsed));
      child.kill('SIGTERM');
    });
  });
}

export async function benchStartup(runs: number): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-startup-'));
  try {
    await startOnce('node dist/main.js', dataDir); // creates the store file; not measured
    const samples: Record<Command, number[]> = { 'node dist/main.js': [], 'tsx src/main.ts': [] };
    for (let i = 0; i < runs; i++) {
      for (const command of Object.keys(COMMANDS) as Command[]) samples[command].push(await startOnce(command, dataDir));
    }
    const rows = [['start command', 'median ms', 'best ms', 'runs']];
    for (const command of Object.keys(COMMANDS) as Command[]) {
      rows.push([command, fmtMs(median(samples[command])), fmtMs(Math.min(...samples[command])), String(runs)]);
    }
    console.log(`\nStart-up to ready (spawn → "listening on", after the warm-up), DuckDB store, DEMO_DATA=0, ${runs} runs each, alternating`);
    console.log(table(rows));
    const ratio = median(samples['node dist/main.js']) / median(samples['tsx src/main.ts']);
    console.log(`production build / tsx start-up: ${fmtRatio(ratio)}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
