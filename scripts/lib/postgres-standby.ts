/**
 * A real streaming standby of a test PostgreSQL server (postgres-server.ts), made as an operator makes one:
 * `pg_basebackup -R -X stream` from the primary over loopback into a temp dir, then started as a hot standby on a free
 * port. pauseReplay()/resumeReplay() hold and release its WAL replay (pg_wal_replay_pause), so a test can keep it
 * behind the primary; destroy() stops it and deletes its files.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';
import type { PostgresServer } from './postgres-server.ts';
import { PG_TOOL_TIMEOUT_MS, runPgTool } from './pg-tools.ts';

const run = promisify(execFile);

export interface PostgresStandby {
  /** The database `database` on the standby. */
  urlOf(database: string): string;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  destroy(): Promise<void>;
}

/** `timeoutMs`: how long pg_basebackup may take (PG_TOOL_TIMEOUT_MS's by default); past it, it is killed. */
export async function startStandby(
  primary: Pick<PostgresServer, 'port'>,
  { timeoutMs = PG_TOOL_TIMEOUT_MS.pg_basebackup }: { timeoutMs?: number } = {},
): Promise<PostgresStandby> {
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'ledger-pg-standby-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const exec = runPgTool;
  const port = await freePort();
  let running = false;
  try {
    await exec(
      'pg_basebackup',
      [
        ...['-D', data, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
        ...['-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
      ],
      { timeoutMs },
    );
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c hot_standby=on -c fsync=off`;
    await exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    running = true;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const urlOf = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    urlOf,
    pauseReplay: () => admin('SELECT pg_wal_replay_pause()'),
    resumeReplay: () => admin('SELECT pg_wal_replay_resume()'),
    async destroy() {
      if (running) await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']).catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
