/**
 * Red team round 3 (issue 25), finding 8 (keys): the production server on the embedded store, with its keys.sock:
 * the socket took a key hash the caller chose and companies that do not exist; `keys revoke 0x1` revoked key 1;
 * a DATA_DIR too long for a Unix socket path meant no socket at all. Now the server makes every key itself, for
 * existing companies only; ids are positive decimal integers; a long DATA_DIR gets its socket in a private temp dir.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { keyAdminSocketPath } from '../../../src/ops/key-admin-socket.ts';
import { askKeySocket } from '../../support/key-admin-client.ts';
import {
  ensureProductionBuild,
  productionEnv,
  startProductionServer,
  REPO_ROOT,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);

describe('keys.sock and the keys CLI (issue 25, finding 8)', function () {
  this.timeout(180_000);
  let dir: string;
  let server: ServerProcess | undefined;
  let dataDir: string;
  const keys = (...args: string[]) =>
    run(process.execPath, ['dist/scripts/keys.js', ...args], {
      cwd: REPO_ROOT,
      env: productionEnv({ DATA_DIR: dataDir }),
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-keys-'));
    // A DATA_DIR whose keys.sock path is longer than a Unix socket path may be (107 bytes).
    dataDir = join(dir, 'a-data-directory-whose-path-is-long-enough'.repeat(2));
    mkdirSync(dataDir);
    expect(Buffer.byteLength(join(dataDir, 'keys.sock'))).to.be.above(107);
    server = await startProductionServer({ DATA_DIR: dataDir, DEMO_DATA: '1' });
    await server.waitForOutput(/Demo API key/);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(keyAdminSocketPath(dataDir)), { recursive: true, force: true });
  });

  it(
    'a DATA_DIR too long for a socket path gets its socket in a private temp directory, and the CLI finds ' + 'it',
    async () => {
      const socketPath = keyAdminSocketPath(dataDir);
      expect(Buffer.byteLength(socketPath)).to.be.at.most(107);
      expect(statSync(dirname(socketPath)).mode & 0o777).to.equal(0o700);
      const listed = await keys('list');
      expect(listed.code, listed.out).to.equal(0);
      expect(listed.out).to.match(/^1\tdemo\tcompanies 1\t/m);
    },
  );

  it('the socket refuses a caller-chosen key hash (no such operation) and makes keys itself', async () => {
    const socketPath = keyAdminSocketPath(dataDir);
    const chosen = createHash('sha256').update('rsk_chosen-by-the-caller').digest('hex');
    const refused = await askKeySocket(socketPath, {
      op: 'createApiKey',
      args: [{ name: 'x', companyIds: [1], keyHash: chosen }],
    });
    expect(refused.error).to.equal('unknown operation createApiKey');
    const issued = await askKeySocket(socketPath, {
      op: 'issueApiKey',
      args: [{ name: 'x', companyIds: [1], keyHash: chosen }],
    });
    const { key } = issued.ok as { key: string };
    expect(key).to.match(/^rsk_[A-Za-z0-9_-]{43}$/);
    expect(createHash('sha256').update(key).digest('hex')).to.not.equal(chosen);
    expect(
      (await fetch(`${server!.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`, { headers: { 'X-ApiKey': key } }))
        .status,
    ).to.equal(200);
  });

  it('the socket refuses companies that do not exist and ids that are not positive integers', async () => {
    const socketPath = keyAdminSocketPath(dataDir);
    expect(
      (await askKeySocket(socketPath, { op: 'issueApiKey', args: [{ name: 'x', companyIds: [1, 999] }] })).error,
    ).to.equal('no such company: 999');
    expect(
      (await askKeySocket(socketPath, { op: 'issueApiKey', args: [{ name: 'x', companyIds: ['1'] }] })).error,
    ).to.contain('positive integers');
    expect((await askKeySocket(socketPath, { op: 'revokeApiKey', args: ['1'] })).error).to.contain(
      'a key id is a positive integer',
    );
  });

  it('`keys revoke 0x1` (or 1e0, +1) is refused and key 1 stays active; `keys create --company 0x1` too', async () => {
    for (const id of ['0x1', '1e0', '+1', '1.0']) {
      const answer = await keys('revoke', id);
      expect(answer.code, answer.out).to.equal(2);
    }
    expect((await keys('create', '--company', '0x1')).code).to.equal(2);
    expect((await keys('list')).out).to.match(/^1\tdemo\tcompanies 1\t.*\tactive$/m);
  });
});
