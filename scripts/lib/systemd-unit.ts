/**
 * The shipped systemd unit (deploy/systemd/reporting-service@.service) as a test runs it: its ExecStart command
 * line, Environment= and WorkingDirectory, with only paths replaced (the release directory, the node binary) and
 * the instance name (%i, the port) filled in. The process gets the unit's environment and nothing of the test
 * runner's but PATH, as systemd gives it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, startServerProcess, type ServerProcess } from './server-process.ts';

export const UNIT_FILE = path.join(REPO_ROOT, 'deploy/systemd/reporting-service@.service');
/** Where the unit expects the release, and the release's own pinned Node (package.json optionalDependencies). */
const UNIT_RELEASE_DIR = '/opt/reporting-service';
const UNIT_NODE = `${UNIT_RELEASE_DIR}/node_modules/.bin/node`;

export interface UnitService {
  workingDirectory: string;
  environment: Record<string, string>;
  execStart: string[];
}

/** The [Service] section's settings used to start the process (each setting once, Environment= repeated). */
export function readUnit(instance: string, text = readFileSync(UNIT_FILE, 'utf8')): UnitService {
  const service = text.slice(text.indexOf('[Service]'), text.indexOf('[Install]'));
  const lines = service
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('['));
  const values = (key: string) =>
    lines.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1).replaceAll('%i', instance));
  const one = (key: string) => {
    const found = values(key);
    if (found.length !== 1) throw new Error(`${UNIT_FILE}: expected one ${key}=, found ${found.length}`);
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
 * `systemd-analyze verify` of an instance of the unit: '' when it is clean, else what it printed; undefined
 * when systemd-analyze is not installed.
 */
export async function verifyUnit(instance: string): Promise<string | undefined> {
  const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
  if (!analyze) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'rs-unit-'));
  try {
    // The release's own Node, as installed in this checkout (systemd-analyze checks that ExecStart is executable).
    writeFileSync(
      path.join(dir, path.basename(UNIT_FILE)),
      readFileSync(UNIT_FILE, 'utf8').replaceAll(
        UNIT_NODE,
        path.join(REPO_ROOT, path.relative(UNIT_RELEASE_DIR, UNIT_NODE)),
      ),
    );
    symlinkSync(path.basename(UNIT_FILE), path.join(dir, `reporting-service@${instance}.service`));
    const result = await promisify(execFile)(analyze, [
      'verify',
      path.join(dir, `reporting-service@${instance}.service`),
    ]).then(
      ({ stdout, stderr }) => stdout + stderr,
      (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message,
    );
    return result.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
