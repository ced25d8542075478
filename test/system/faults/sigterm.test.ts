/**
 * The real process (`tsx src/main.ts`): SIGTERM stops accepting, lets the in-flight request finish, closes the
 * store and exits 0. A bad request never stops the process.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

function startServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`server exited ${code}:\n${out}`)));
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    });
  });
}

describe('process: SIGTERM drains and exits 0', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'rs-sigterm-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finishes the in-flight request, refuses new connections, closes the store, exits 0', async () => {
    const { child, url, output } = await startServer(dir);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const { hostname, port } = new URL(url);

    // Bad requests first: the process must survive them.
    for (const body of ['{', '[1,2]', '"x"', '{"Message":"unterminated}']) {
      const r = await fetch(`${url}/json/reply/EchoRequest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(r.status).to.equal(400);
    }
    expect((await fetch(`${url}/v1/echo/x%ZZ`)).status).to.be.below(500);

    // An in-flight request: headers and half the body sent, the rest after SIGTERM.
    const body = JSON.stringify({ Message: 'drained' });
    const socket = connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d));
    const ended = new Promise((r) => socket.once('close', r));
    socket.write(
      `POST /json/reply/EchoRequest HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 200));

    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    const refused = await fetch(`${url}/health`).then(
      () => false,
      () => true,
    );
    expect(refused, 'new connections are refused while draining').to.equal(true);

    socket.write(body.slice(5));
    await ended;
    expect(response).to.match(/^HTTP\/1\.1 200 OK/);
    expect(response).to.contain('{"Message":"drained","CompanyName":"Reporting Service","ResponseStatus":{}}');
    expect(await exited).to.equal(0);
    expect(output()).to.contain('"msg":"stopped"');
  });

  it(
    'after bursts of concurrent reports on the demo ledger, exits 0 every time (no crash while the store is ' +
      'released)',
    async function () {
      this.timeout(180_000);
      const ledgerDir = mkdtempSync(join(tmpdir(), 'rs-sigterm-load-'));
      let key = '';
      try {
        for (let round = 0; round < 3; round++) {
          const { child, url, output } = await startServer(ledgerDir, { DEMO_DATA: '1' });
          for (let wait = 0; !key && wait < 100; wait++) {
            key = /Demo API key[^\n]*: (rsk_[A-Za-z0-9_-]+)/.exec(output())?.[1] ?? '';
            if (!key) await new Promise((r) => setTimeout(r, 100));
          }
          const exited = new Promise<[number | null, string | null]>((resolve) =>
            child.once('exit', (code, signal) => resolve([code, signal])),
          );
          const load = await autocannon({
            url,
            connections: 50,
            duration: 3,
            requests: [
              {
                method: 'GET',
                path: '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true',
                headers: { 'x-apikey': key },
              },
              { method: 'GET', path: '/v1/echo/load' },
            ],
          });
          expect(load.non2xx + load.errors + load.timeouts, `round ${round}: failed requests`).to.equal(0);
          child.kill('SIGTERM');
          const hung = new Promise<[string, null]>((resolve) =>
            setTimeout(() => resolve(['still running 15 s after SIGTERM', null]), 15_000).unref(),
          );
          const outcome = await Promise.race([exited, hung]);
          if (outcome[0] !== 0) child.kill('SIGKILL');
          expect(outcome, `round ${round}`).to.deep.equal([0, null]);
        }
      } finally {
        rmSync(ledgerDir, { recursive: true, force: true });
      }
    },
  );
});
