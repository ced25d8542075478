/**
 * PostgreSQL's tools as the test servers run them are bounded in time: a pg_basebackup whose primary never answers
 * and an initdb that waits for its password file are killed at their bound, with an error naming the tool and the
 * bound, and nothing of theirs keeps running.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { constants, chmodSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { skipPostgres } from '../../../scripts/lib/postgres-server.ts';
import { startStandby } from '../../../scripts/lib/postgres-standby.ts';
import { PgToolTimeout, runPgTool } from '../../../scripts/lib/pg-tools.ts';
import { freePort } from '../../../scripts/lib/free-port.ts';

const BOUND_MS = 1500;

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

(skipPostgres ? describe.skip : describe)('PostgreSQL tools are bounded in time', function () {
  this.timeout(60_000);

  it('When the primary never answers, then pg_basebackup is killed at its bound and the error says so', async () => {
    const sockets: Socket[] = [];
    const closed: Promise<void>[] = [];
    const silent: Server = createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // read what it sends (and so see its end)
      closed.push(new Promise((resolve) => socket.on('close', () => resolve())));
    });
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      const err = await rejectionOf(startStandby({ port }, { timeoutMs: BOUND_MS }));
      expect(err).to.be.instanceOf(PgToolTimeout);
      expect(err.message).to.match(/^pg_basebackup did not finish within 1\.5 s and was killed/);
      expect(sockets.length).to.be.above(0);
      await Promise.all(closed); // its connection ends: the process is gone, not left waiting
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('When initdb waits for its password file, then it is killed at its bound and the error says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tools-bounded-'));
    chmodSync(dir, 0o777); // initdb runs as `postgres` when the tests run as root
    const fifo = join(dir, 'password');
    await promisify(execFile)('mkfifo', ['-m', '666', fifo]);
    try {
      const args = ['-D', join(dir, 'data'), '-U', 'postgres', `--pwfile=${fifo}`, '--no-sync', '--locale=C'];
      const err = await rejectionOf(runPgTool('initdb', args, { timeoutMs: BOUND_MS }));
      expect(err).to.be.instanceOf(PgToolTimeout);
      expect(err.message).to.match(/^initdb did not finish within 1\.5 s and was killed/);
      // No reader is left on the FIFO: opening it to write without blocking finds none.
      expect(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).to.throw(/ENXIO/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
