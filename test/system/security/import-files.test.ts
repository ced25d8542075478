/**
 * Red team round 4 (issue 36), findings 8 and 11: the import through a running server's keys.sock (and the CLI)
 * read what a path named whatever it was. A FIFO blocked the server's reader for good (and several held libuv's
 * pool), `/dev/zero` as the reference grew the server to 15 GB, `<(cat j.csv)` (`/dev/fd/63`) opened the server's own
 * descriptor 63, the reference was read with readFileSync on the event loop, and DuckDB read `feb[2].csv` as a glob
 * (importing `feb2.csv` beside it). Now only regular files are read, off the event loop, at the path as written.
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyAdminSocketPath } from '../../../src/ops/key-admin-socket.ts';
import { askKeySocket } from '../../support/key-admin-client.ts';
import {
  ensureProductionBuild,
  productionEnv,
  REPO_ROOT,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';
import { SEVEN_CO_REFERENCE } from '../../fixtures/seven-co-reference.ts';

const run = promisify(execFile);

function journal(prefix: string, entries: number): string {
  const lines = ['entry,date,location,account,amount'];
  for (let i = 0; i < entries; i++)
    lines.push(`${prefix}${i},2024-01-0${1 + i},70,7400,-10.00`, `${prefix}${i},2024-01-0${1 + i},70,7000,10.00`);
  return `${lines.join('\n')}\n`;
}

describe('an import reads regular files only, at the path as written (issue 36, findings 8 and 11)', function () {
  this.timeout(180_000);
  let dir: string;
  let dataDir: string;
  let server: ServerProcess;
  let socket: string;
  const importCli = (args: string[], extra: { stdio?: 'pipe' } = {}) =>
    run(process.execPath, ['dist/scripts/import.js', ...args], {
      cwd: REPO_ROOT,
      env: productionEnv({ DATA_DIR: dataDir }),
      timeout: 60_000,
      ...extra,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
  const healthy = async () => expect((await fetch(`${server.url}/health`)).status).to.equal(200);

  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-import-files-'));
    dataDir = join(dir, 'data');
    writeFileSync(join(dir, 'reference.csv'), SEVEN_CO_REFERENCE);
    server = await startProductionServer({ DATA_DIR: dataDir, DEMO_DATA: '0' });
    socket = keyAdminSocketPath(dataDir);
    await run('mkfifo', [join(dir, 'journal.fifo'), join(dir, 'reference.fifo')]);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("`feb[2].csv` beside `feb2.csv` imports feb[2].csv's own entries (no glob), through the server", async () => {
    writeFileSync(join(dir, 'feb[2].csv'), journal('G', 2));
    writeFileSync(join(dir, 'feb2.csv'), journal('H', 5));
    const result = await importCli([join(dir, 'feb[2].csv'), '--reference', join(dir, 'reference.csv')]);
    expect(result.code, result.out).to.equal(0);
    expect(result.out).to.contain('a running server holds');
    expect(result.out).to.match(/loaded 2 entries into the running server's duckdb store/);
  });

  it(
    'a FIFO as journal or reference is refused at once by the server (socket) and the CLI; the server serves ' + 'on',
    async () => {
      for (const request of [
        { journal: join(dir, 'journal.fifo') },
        { journal: join(dir, 'feb2.csv'), reference: join(dir, 'reference.fifo'), companyId: 7 },
      ]) {
        const answer = await askKeySocket(socket, { op: 'importCsv', args: [request] });
        expect(answer.error).to.match(
          /is a pipe \(FIFO\): an import reads regular files only; save the data to a file first$/,
        );
        await healthy();
      }
      const cli = await importCli([join(dir, 'journal.fifo')]);
      expect(cli.code, cli.out).to.not.equal(0);
      expect(cli.out).to.contain('journal.fifo is a pipe (FIFO)');
    },
  );

  it("/dev/zero and /dev/fd/N (a shell's <(...)) are refused by the server and the CLI, never read", async () => {
    for (const request of [
      { journal: '/dev/zero' },
      { journal: join(dir, 'feb2.csv'), reference: '/dev/zero', companyId: 7 },
      { journal: '/dev/fd/0' },
      { journal: '/proc/self/fd/0' },
    ]) {
      const answer = await askKeySocket(socket, { op: 'importCsv', args: [request] });
      expect(answer.error, JSON.stringify(request)).to.match(/an import reads regular files only/);
    }
    await healthy();
    // The CLI given its own descriptor 3 (a regular file here, as <(cat j.csv) gives a pipe): refused, not handed on.
    const fd = openSync(join(dir, 'feb2.csv'), 'r');
    const child = spawn(process.execPath, ['dist/scripts/import.js', '/dev/fd/3'], {
      cwd: REPO_ROOT,
      env: productionEnv({ DATA_DIR: dataDir }),
      stdio: ['ignore', 'pipe', 'pipe', fd],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, out).to.not.equal(0);
    expect(out).to.contain('/dev/fd/3 is a system path');
    expect(out).to.not.match(/loaded \d+ entries/);
    await healthy();
  });
});
