/**
 * Real server processes for deployment tests, started as a user starts them: the production build
 * (`node dist/src/start.js`, built first by scripts/ensure-build.mjs as `npm start` does) or any command line.
 * Resolves when the process prints "listening on <url>"; stop() sends SIGTERM and waits, kill() SIGKILLs.
 */
import { PRODUCTION_ENV, PRODUCTION_NODE_ARGS } from './production-start.ts';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './repo-root.ts';

export { REPO_ROOT };

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
  /** Resolves when the output so far matches (e.g. the last line main.ts prints at start). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<number | null>;
  kill(): Promise<number | null>;
}

/** Builds dist/ when it is missing or stale, exactly as `npm start`'s prestart does. */
export async function ensureProductionBuild(): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-build.mjs')], { cwd: REPO_ROOT });
}

/** This process's environment less NODE_OPTIONS: a process started as users start it inherits no tsx loader. */
export function withoutNodeOptions(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ignored, ...rest } = process.env;
  return rest;
}

/** The environment of a production process: no tsx loader inherited from the test runner. */
export function productionEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...withoutNodeOptions(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
}

export function startServerProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      if (signal) out += `\n[process ended by ${signal}]`;
      resolve(code);
    }),
  );
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${options.timeoutMs ?? 60_000} ms:\n${out}`));
    }, options.timeoutMs ?? 60_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code} before it was ready:\n${out}`));
    });
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[^\s]+?)(?:\s|$)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      const waitForOutput = async (pattern: RegExp, timeoutMs = 30_000) => {
        const until = Date.now() + timeoutMs;
        while (!pattern.test(out)) {
          if (Date.now() > until || child.exitCode !== null)
            throw new Error(`output never matched ${pattern}:\n${out}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      resolve({
        child,
        url: m[1]!.replace(/\/$/, ''),
        output: () => out,
        exited,
        waitForOutput,
        stop: () => stopWith('SIGTERM'),
        kill: () => stopWith('SIGKILL'),
      });
    });
  });
}

/**
 * `node dist/src/start.js` in `cwd` (the repository, or a production install of it), with npm start's options and
 * the variables it sets.
 */
export function startProductionServer(
  env: Record<string, string | undefined>,
  cwd = REPO_ROOT,
): Promise<ServerProcess> {
  return startServerProcess(process.execPath, [...PRODUCTION_NODE_ARGS], {
    cwd,
    env: productionEnv({ ...PRODUCTION_ENV, ...env }),
  });
}

/**
 * Stops a server started through `npm start` with SIGTERM to the server process itself (its pid is in its JSON log
 * lines): npm does not pass the signal on, and the server would outlive it holding its data folder.
 */
export async function stopNpmStarted(server: ServerProcess): Promise<number | null> {
  await server.waitForOutput(/"pid":\d+/).catch(() => undefined);
  const pid = Number(/"pid":(\d+)/.exec(server.output())?.[1]);
  if (pid) process.kill(pid, 'SIGTERM');
  return server.stop();
}
