/**
 * The service as a user starts it (`npm start` runs `tsx src/main.ts`): a child process on a free loopback port over
 * its own DuckDB directory with the demo ledger; resolves with its URL and the demo key it prints on first start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServiceProcess {
  url: string;
  /** The demo API key printed on first start (company 1). */
  apiKey: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function startService(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rs-service-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`service did not start in 120 s:\n${out}`))), 120_000);
    child.once('exit', (code) => reject(new Error(`service exited ${code}:\n${out}`)));
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1];
      const apiKey = /Demo API key for company 1[^:]*: (\S+)/.exec(out)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolve({ url, apiKey, child, stop });
      }
    });
  });
}
