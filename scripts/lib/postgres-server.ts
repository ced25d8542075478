/**
 * A real, throwaway PostgreSQL server for tests: initdb into a temp dir, pg_ctl start on a free 127.0.0.1 port with
 * its unix socket inside the temp dir. As root, the binaries run as the `postgres` system user (runuser).
 * stop()/start() restart it on the same port and data dir (for fault tests); destroy() stops it and deletes everything.
 * With `keepData`, the data directory is that folder instead (made by initdb when it holds no cluster yet) and
 * destroy() leaves it in place: the benchmarks keep a loaded ledger between runs that way.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { PG_BIN_DIR, PgToolTimeout, runPgTool } from './pg-tools.ts';

const run = promisify(execFile);

export interface PostgresServer {
  url: string;
  port: number;
  /** Creates another empty database on this server and returns its URL (a fresh database per test). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** True when the tests may skip PostgreSQL (explicit opt-out only). */
export const skipPostgres = process.env.SKIP_POSTGRES === '1';

export async function startPostgresServer(
  database = 'ledger_test',
  { keepData }: { keepData?: string } = {},
): Promise<PostgresServer> {
  for (const bin of ['initdb', 'pg_ctl']) {
    if (!existsSync(join(PG_BIN_DIR, bin))) {
      throw new Error(
        `PostgreSQL binaries not found: ${join(PG_BIN_DIR, bin)} is missing. Install PostgreSQL 15 ` +
          '(apt-get install postgresql-15), point PG_BIN_DIR at its bin directory, or set SKIP_POSTGRES=1 to ' +
          'skip the PostgreSQL tests.',
      );
    }
  }
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
  const data = keepData ?? join(dir, 'data');
  const fresh = !existsSync(join(data, 'PG_VERSION'));
  const sock = join(dir, 'sock');
  mkdirSync(sock);
  if (fresh && keepData) mkdirSync(data, { recursive: true });
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    for (const p of [dir, sock, ...(fresh && keepData ? [data] : [])])
      chownSync(p, Number(stdout.trim()), Number(gid.trim()));
  }
  const exec = runPgTool;

  const port = await freePort();
  if (fresh) {
    try {
      await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
    } catch (err) {
      // A killed initdb leaves a half-made cluster, which a kept folder must not hold for the next run.
      if (keepData && err instanceof PgToolTimeout) rmSync(data, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  const options =
    `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c ` +
    `full_page_writes=off`;
  let running = false;
  const createDatabase = async (name: string): Promise<string> => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
    const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`); // validated identifier
    } finally {
      await admin.end();
    }
    return `postgresql://postgres@127.0.0.1:${port}/${name}`;
  };
  const start = async () => {
    await exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    running = true;
  };
  const stop = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
    running = false;
  };
  try {
    await start();
    if (fresh) await createDatabase(database);
  } catch (err) {
    if (running) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
    port,
    createDatabase,
    start,
    stop,
    async destroy() {
      if (running) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
