/**
 * The shipped systemd units (deploy/systemd/: an instance, reporting-service@.service; the shadow phase's mirror sink)
 * as a test runs them: ExecStart, Environment= and WorkingDirectory, with only paths replaced (the release directory,
 * its binaries), the instance name (%i, the port) filled in and, for the sink, its shipped ports and paths. The process
 * gets the unit's environment and nothing of the test runner's but PATH, as systemd gives it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, startServerProcess, type ServerProcess } from './server-process.ts';

export const UNIT_FILE = path.join(REPO_ROOT, 'deploy/systemd/reporting-service@.service');
const SINK_UNIT_FILE = path.join(REPO_ROOT, 'deploy/systemd/reporting-shadow-sink.service');
/** Where the unit expects the release, and the release's own pinned Node (package.json optionalDependencies). */
const UNIT_RELEASE_DIR = '/opt/reporting-service';
const UNIT_NODE = `${UNIT_RELEASE_DIR}/node_modules/.bin/node`;

export interface UnitService {
  workingDirectory: string;
  environment: Record<string, string>;
  execStart: string[];
}

/**
 * The [Service] section's settings used to start the process (each setting once, Environment= repeated; a line ending
 * in a backslash goes on on the next).
 */
export function readUnit(instance: string, file = UNIT_FILE): UnitService {
  const text = readFileSync(file, 'utf8');
  const service = text.slice(text.indexOf('[Service]'), text.indexOf('[Install]'));
  const lines = service
    .replaceAll(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('['));
  const values = (key: string) =>
    lines.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1).replaceAll('%i', instance));
  const one = (key: string) => {
    const found = values(key);
    if (found.length !== 1) throw new Error(`${file}: expected one ${key}=, found ${found.length}`);
    return found[0]!;
  };
  const environment: Record<string, string> = {};
  for (const assignment of values('Environment').flatMap((v) => v.split(/\s+/))) {
    const eq = assignment.indexOf('=');
    environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  return { workingDirectory: one('WorkingDirectory'), environment, execStart: one('ExecStart').split(/\s+/) };
}

/** Starts one instance as systemd would: ExecStart in WorkingDirectory with the unit's environment plus `envFile`. */
export function startUnitInstance(
  port: number,
  envFile: Record<string, string>,
  releaseDir = REPO_ROOT,
): Promise<ServerProcess> {
  const unit = readUnit(String(port));
  if (unit.workingDirectory !== UNIT_RELEASE_DIR)
    throw new Error(`unit WorkingDirectory is ${unit.workingDirectory}, expected ${UNIT_RELEASE_DIR}`);
  const [bin, ...args] = unit.execStart;
  if (bin !== UNIT_NODE) throw new Error(`unit ExecStart runs ${bin}, expected ${UNIT_NODE}`);
  return startServerProcess(path.join(releaseDir, path.relative(UNIT_RELEASE_DIR, UNIT_NODE)), args, {
    cwd: releaseDir,
    env: { PATH: process.env.PATH, ...unit.environment, ...envFile },
  });
}

/**
 * The mirror sink as its unit starts it: ExecStart in the checkout (as the release) with the unit's environment, each
 * `replace` key (a word of ExecStart, there once: a shipped port, address or path) given its value and
 * $SHADOW_OPTIONS expanded from `shadowOptions`, as systemd splits an unbraced variable into words.
 */
export function startSinkUnit(replace: Record<string, string>, shadowOptions: string[] = []): Promise<ServerProcess> {
  const unit = readUnit('', SINK_UNIT_FILE);
  if (unit.workingDirectory !== UNIT_RELEASE_DIR)
    throw new Error(`sink unit WorkingDirectory is ${unit.workingDirectory}, expected ${UNIT_RELEASE_DIR}`);
  const [bin, ...args] = unit.execStart;
  if (bin !== UNIT_NODE) throw new Error(`sink unit ExecStart runs ${bin}, expected ${UNIT_NODE}`);
  for (const word of Object.keys(replace))
    if (args.filter((a) => a === word).length !== 1) throw new Error(`sink unit ExecStart: expected ${word} once`);
  const words = args.flatMap((a) => (a === '$SHADOW_OPTIONS' ? shadowOptions : [replace[a] ?? a]));
  return startServerProcess(path.join(REPO_ROOT, path.relative(UNIT_RELEASE_DIR, UNIT_NODE)), words, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...unit.environment },
  });
}

/**
 * `systemd-analyze verify` of an instance of the unit (or, without an instance, of the sink's unit): '' when it is
 * clean, else what it printed; undefined when systemd-analyze is not installed.
 */
export async function verifyUnit(instance?: string): Promise<string | undefined> {
  const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
  if (!analyze) return undefined;
  const file = instance === undefined ? SINK_UNIT_FILE : UNIT_FILE;
  const dir = mkdtempSync(path.join(tmpdir(), 'rs-unit-'));
  try {
    // The release's own Node, as installed in this checkout (systemd-analyze checks that ExecStart is executable).
    writeFileSync(
      path.join(dir, path.basename(file)),
      readFileSync(file, 'utf8').replaceAll(
        UNIT_NODE,
        path.join(REPO_ROOT, path.relative(UNIT_RELEASE_DIR, UNIT_NODE)),
      ),
    );
    const name = instance === undefined ? path.basename(file) : `reporting-service@${instance}.service`;
    if (instance !== undefined) symlinkSync(path.basename(file), path.join(dir, name));
    const result = await promisify(execFile)(analyze, ['verify', path.join(dir, name)]).then(
      ({ stdout, stderr }) => stdout + stderr,
      (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message,
    );
    return result.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
