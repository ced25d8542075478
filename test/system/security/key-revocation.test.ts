/**
 * Red-team finding 8 (issue 15): on DuckDB a revoked key kept working until the server restarted (the keys CLI cannot
 * open a file the server holds). The server runs as a process (`src/main.ts`), the keys CLI beside it.
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

describe('API key revocation on the embedded DuckDB store, with the server running (issue 15, finding 8)', function () {
  this.timeout(120_000);
  let dir: string;
  let child: ChildProcess | undefined;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'rs-revoke-'))));
  after(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm run keys -- revoke reaches the running server: the key is refused at once, no restart', async () => {
    const env = { ...process.env, DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '1', LOG_LEVEL: 'warn' };
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 90_000);
      child!.once('exit', (code) => reject(new Error(`server exited ${code}:\n${out}`)));
      child!.stdout!.on('data', () => {
        const u = /listening on (http:\/\/[\d.:]+)/.exec(out);
        const k = /Demo API key for company 1 \(shown once, stored hashed\): (rsk_\S+)/.exec(out);
        if (u && k) {
          clearTimeout(timer);
          resolve({ url: u[1]!, key: k[1]! });
        }
      });
    });
    const report = `${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`;
    expect((await fetch(report, { headers: { 'X-ApiKey': key } })).status).to.equal(200);

    const keys = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args], { env });
    const listed = await keys('list');
    expect(listed.stdout).to.match(/^1\tdemo\tcompanies 1\t.*\tactive$/m);
    const created = await keys('create', '--company', '1', '--name', 'second');
    const second = /key \(shown once, stored hashed\): (rsk_\S+)/.exec(created.stdout)![1]!;
    expect((await fetch(report, { headers: { 'X-ApiKey': second } })).status).to.equal(200);

    expect((await keys('revoke', '1')).stdout).to.contain('revoked key 1');
    expect((await fetch(report, { headers: { 'X-ApiKey': key } })).status).to.equal(401);
    expect((await fetch(report, { headers: { 'X-ApiKey': second } })).status).to.equal(200);
    expect((await keys('list')).stdout).to.match(/^1\tdemo\tcompanies 1\t.*\trevoked /m);
  });
});
