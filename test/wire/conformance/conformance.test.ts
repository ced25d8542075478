/**
 * The conformance kit: the suite against the in-process server (every rule passes or does not apply), the CLI
 * (`npm run conformance -- <url>`) against a listening test server (exit 0, the table), and the CLI against a
 * deliberately broken test double (a plain express app answering 404 as JSON): exit non-zero, the rule named.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { formatResults, runConformance, type RuleResult } from '../../../src/conformance/suite.ts';
import { listen } from '../../../src/server.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  return run('npx', ['tsx', 'scripts/conformance.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, API_KEY: '' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '' }),
  );
}

describe('conformance kit', function () {
  this.timeout(120_000);
  // The app as deployed (rawApp): the test harness's default-key injection would hide the 401 rules.
  let t: TestApp & { url: string; server: Server };
  before(async () => {
    const app = await createTestApp();
    const { server, url } = await listen(app.rawApp, 0, '127.0.0.1');
    t = { ...app, server, url };
  });
  after(async () => {
    await new Promise<void>((resolve) => t.server.close(() => resolve()));
    await t.close();
  });

  describe('the suite against the in-process server, with an API key', () => {
    let results: RuleResult[];
    before(async () => {
      results = await runConformance(t.url, { apiKey: t.apiKey });
    });

    it('passes every rule (none fails)', () => {
      const failed = results.filter((r) => r.status === 'fail');
      expect(failed, formatResults(results)).to.deep.equal([]);
    });

    it('covers every operation of openapi/ and the wsdl/ and wire rules', () => {
      const names = results.map((r) => r.rule);
      for (const id of ['Echo', 'EchoReplyGet', 'EchoReplyPost', 'GetFlat', 'GetFlatReplyGet', 'GetFlatReplyPost'])
        expect(names).to.include(`op:${id}:200`);
      expect(names).to.include.members([
        'op:GetFlat:400',
        'op:GetFlatReplyPost:400',
        'wsdl:served',
        'soap:fault',
        'wire:404-text-plain',
        'wire:405-unknown-op',
        'wire:jsonp-sanitise',
        'wire:date-form',
        'wire:xml',
      ]);
      for (const id of ['Echo', 'GetFlat', 'GetFlatReplyPost', 'GetFlatReplyGet']) {
        expect(results.find((r) => r.rule === `op:${id}:200`)?.status, id).to.equal('pass');
      }
    });
  });

  it('npm run conformance -- <url> --api-key K exits 0 and prints the table', async () => {
    const { code, stdout } = await cli(t.url, '--api-key', t.apiKey);
    expect(code, stdout).to.equal(0);
    expect(stdout).to.match(/^rule\s+status\s+description/m);
    expect(stdout).to.match(/^op:GetFlat:200\s+pass\s/m);
    expect(stdout).to.match(/^wire:404-text-plain\s+pass\s/m);
    expect(stdout).to.match(/\d+ pass, 0 fail, \d+ n\/a/);
  });

  it('without a key, the report rules do not apply and nothing fails', async () => {
    const { code, stdout } = await cli(t.url);
    expect(code, stdout).to.equal(0);
    expect(stdout).to.match(/^op:GetFlat:200\s+n\/a\s.*requires an API key/m);
    expect(stdout).to.match(/^op:GetFlat:401\s+pass\s/m);
  });

  describe('against a deliberately broken server', () => {
    let broken: Server;
    let url: string;
    before(async () => {
      const app = express();
      app.get('/v1/echo/:message', (req, res) => res.json({ Message: req.params.message, ResponseStatus: {} }));
      app.use((_req, res) => res.status(404).json({ ResponseStatus: { ErrorCode: 'NotFound', Message: 'no route' } }));
      broken = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => broken.close(() => resolve())));

    it('exits non-zero and names the rule, with the request and response of the failure', async () => {
      const { code, stdout } = await cli(url);
      expect(code).to.equal(1);
      expect(stdout).to.match(/^wire:404-text-plain\s+fail\s/m);
      expect(stdout).to.include(
        "FAIL wire:404-text-plain: Content-Type 'application/json; charset=utf-8', expected text/plain",
      );
      expect(stdout).to.include('GET /conformance/no/such/route');
      expect(stdout).to.include('{"ResponseStatus":{"ErrorCode":"NotFound","Message":"no route"}}');
    });
  });

  describe(
    'against a host that never answers (it reads the request and stays silent, as a host did to a SOAP ' + 'POST)',
    () => {
      let silent: NetServer;
      let url: string;
      const sockets = new Set<Socket>();
      before(async () => {
        silent = createNetServer((socket) => {
          sockets.add(socket);
          socket.on('data', () => undefined); // read, never answer
          socket.on('close', () => sockets.delete(socket));
        });
        await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
        url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      });
      after(() => {
        for (const socket of sockets) socket.destroy();
        return new Promise<void>((resolve) => silent.close(() => resolve()));
      });

      it('finishes, and reports every rule that sent a request as failed with the time-out as the reason', async () => {
        const results = await runConformance(url, { apiKey: 'k', timeoutMs: 150 });
        const failed = results.filter((r) => r.status === 'fail');
        expect(failed.length).to.be.greaterThan(10);
        const soap = results.find((r) => r.rule === 'soap:fault');
        expect(soap?.status).to.equal('fail');
        expect(soap?.reason).to.match(/^timed out: no complete answer to POST \/soap12 within 150 ms$/);
        expect(soap?.exchange?.response).to.include('(no answer)');
        for (const r of failed) expect(r.reason, r.rule).to.match(/^timed out: /);
      });

      it('the CLI takes --timeout and exits 1', async () => {
        const { code, stdout } = await cli(url, '--timeout', '150');
        expect(code).to.equal(1);
        expect(stdout).to.match(/timed out: no complete answer to GET \/v1\/echo\/\S+ within 150 ms/);
      });
    },
  );
});
