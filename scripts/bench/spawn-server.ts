/**
 * A server process started as a user starts it, for the benchmarks: its own command line, a free loopback port, a
 * scratch data directory, the embedded store without the demo ledger unless asked, and the bench's NODE_OPTIONS (tsx)
 * not inherited. `ready` is the time from spawn to its `listening on` line. Unlike the tests' helper
 * (scripts/lib/server-process.ts, which settles once the process is ready and keeps all it prints), it returns at
 * spawn, so a start can be probed while it runs, and drains the log of a process under load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../lib/free-port.ts';
import { REPO_ROOT } from '../lib/repo-root.ts';
import { PRODUCTION_ENV, PRODUCTION_NODE_ARGS } from '../lib/production-start.ts';
import { withoutNodeOptions } from '../lib/server-process.ts';

/** How long a start may take, unless told, before the process is killed and `ready` rejects. */
export const READY_TIMEOUT_MS = 120_000;
/** How long a stopped server may drain (its DRAIN_TIMEOUT_MS is 10 s) before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

export interface SpawnedServer {
  child: ChildProcess;
  port: number;
  url: string;
  /** performance.now() at spawn. */
  spawnedAt: number;
  /**
   * Milliseconds from spawn to the `listening on` line; rejects if the process exits before it, or is not ready within
   * `readyTimeoutMs` (it is killed then).
   */
  ready: Promise<number>;
  /** What it printed: all of it with keepOutput, else up to its `listening on` line (stdout is drained after that). */
  output(): string;
  /** SIGTERM (SIGKILL after STOP_TIMEOUT_MS), and its exit. */
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  dataDir: string;
  /** Variables set (over the defaults: DATABASE_URL empty, DEMO_DATA=0, LOG_LEVEL=warn). */
  env?: Record<string, string>;
  /** Inherited variables it is started without. */
  unset?: readonly string[];
  keepOutput?: boolean;
  /** How long the start may take (READY_TIMEOUT_MS). */
  readyTimeoutMs?: number;
}

export async function spawnServer(
  argv: readonly [string, ...string[]],
  options: SpawnServerOptions,
): Promise<SpawnedServer> {
  const inherited = withoutNodeOptions();
  for (const name of options.unset ?? []) delete inherited[name];
  const port = await freePort();
  const spawnedAt = performance.now();
  const [bin, ...args] = argv;
  // The production start (npm start's node arguments) also gets the variables npm start sets.
  const production = args.join(' ') === PRODUCTION_NODE_ARGS.join(' ') ? PRODUCTION_ENV : {};
  const child = spawn(bin, args, {
    cwd: REPO_ROOT,
    env: {
      ...inherited,
      DATA_DIR: options.dataDir,
      DATABASE_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DEMO_DATA: '0',
      LOG_LEVEL: 'warn',
      ...production,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = new Promise<number>((resolve, reject) => {
    const exited = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited (${code}) before it was ready: ${out}`));
    };
    const timeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    const timer = setTimeout(() => {
      child.off('exit', exited);
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} was not ready within ${timeoutMs} ms: ${out}`));
    }, timeoutMs);
    child.once('exit', exited);
    const read = (chunk: Buffer) => {
      out += chunk;
      if (!/listening on /.test(out)) return;
      clearTimeout(timer);
      child.off('exit', exited);
      if (!options.keepOutput) {
        child.stdout!.off('data', read);
        child.stdout!.resume();
      }
      resolve(performance.now() - spawnedAt);
    };
    child.stdout!.on('data', read);
  });
  ready.catch(() => undefined);
  return { child, port, url: `http://127.0.0.1:${port}`, spawnedAt, ready, output: () => out, stop: () => stop(child) };
}

/**
 * Asks a process to stop (SIGTERM unless `ask` says otherwise), SIGKILL after STOP_TIMEOUT_MS; settles on its exit.
 */
export function stop(child: ChildProcess, ask: () => void = () => child.kill('SIGTERM')): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    ask();
  });
}

/**
 * The first message a forked process sends (its readiness, or its result); rejects, naming `what`, when it exits
 * before sending one, or sends none within `timeoutMs` (it is killed then).
 */
export function firstMessage<T>(child: ChildProcess, what: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = (then: () => void) => {
      clearTimeout(timer);
      child.off('message', received);
      child.off('exit', exited);
      then();
    };
    const received = (message: unknown) => settle(() => resolve(message as T));
    const exited = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(() => reject(new Error(`${what} exited (${signal ?? code}) before it answered`)));
    const timer = setTimeout(
      () =>
        settle(() => {
          child.kill('SIGKILL');
          reject(new Error(`${what} did not answer within ${timeoutMs} ms`));
        }),
      timeoutMs,
    );
    child.once('message', received);
    child.once('exit', exited);
  });
}
