/**
 * Red-team finding 8 (issue 15): `?api%6Bey=<key>` authenticated but was logged in clear (redaction matched the raw
 * text); near-misses (`api_key=`, a key under another name or in the path) were logged in clear; on DuckDB a revoked
 * key kept working until the server restarted (the keys CLI cannot open a file the server holds).
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { pino } from 'pino';
import request from 'supertest';
import { redactApiKey } from '../../src/auth/api-keys.ts';
import { createTestApp } from '../support/test-app.ts';

const run = promisify(execFile);

describe('API keys in logs and revocation (issue 15, finding 8)', () => {
  it('a key sent as ?api%6Bey= (it authenticates) or under near-miss names never reaches the access log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await createTestApp({ logger: pino({ level: 'info' }, sink) });
    const key = t.apiKey;
    const encoded = encodeURIComponent(key);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&api%6Bey=${encoded}`).expect(200);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&API%5FKEY=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&x=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&token=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/echo/${encoded}`).expect(200);
    await request(t.rawApp)
      .get(`/v1/echo/${key.replace('_', '%5F')}`)
      .expect(200);
    const text = lines.join('');
    expect(text).to.contain('api%6Bey=[redacted]');
    expect(text).to.not.contain(key);
    expect(text).to.not.contain(encoded);
    expect(text).to.not.contain(key.slice(4)); // the random part, in any encoding of the prefix
    await t.close();
  });

  it('redaction keeps everything else of the URL as sent', () => {
    expect(
      redactApiKey('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=[1,2]&apikey=abc&format=json'),
    ).to.equal('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=[1,2]&apikey=[redacted]&format=json');
    expect(redactApiKey('/v1/echo/hello?callback=fn')).to.equal('/v1/echo/hello?callback=fn');
    expect(redactApiKey('/x?api+key=1&%ZZ=2&Api-Key=3')).to.equal('/x?api+key=[redacted]&%ZZ=2&Api-Key=[redacted]');
  });

  describe('revocation on the embedded DuckDB store, with the server running', function () {
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

      const keys = (...args: string[]) =>
        run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args], { env });
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
});
