/**
 * The front door and the operations' compiled plans: what they take over from Express (routing, prototypes, helmet,
 * res.send) is answered as Express answered it.
 */
import { expect } from 'chai';
import express from 'express';
import helmet from 'helmet';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SECURITY_HEADER_OPTIONS, recordHelmetHeaders } from '../../src/http/security-headers.ts';
import { listen } from '../../src/server.ts';
import { NO_KEY_HEADER, createTestApp, type TestApp } from '../support/test-app.ts';

/** Raw header names and values as sent, in order, without the ones that differ on every answer. */
function stableHeaders(answer: request.Response): [string, string][] {
  const raw = (answer as unknown as { res: IncomingMessage }).res.rawHeaders;
  const pairs: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!/^(date|x-request-id)$/i.test(raw[i]!)) pairs.push([raw[i]!, raw[i + 1]!]);
  }
  return pairs;
}

const HELMET_NAMES = recordHelmetHeaders(SECURITY_HEADER_OPTIONS).set.map(([name]) => name.toLowerCase());

describe('front door: compiled operation plans', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('When a DTO answer is written whole, then its status, headers (names, values, order) and body are what res.send wrote', async () => {
    const whole = await request(t.app).get('/v1/echo/hello').expect(200);
    // A conditional request takes res.send (which may answer 304); an ETag that does not match gets the full answer.
    const viaSend = await request(t.app).get('/v1/echo/hello').set('If-None-Match', '"other"').expect(200);
    expect(stableHeaders(whole)).to.deep.equal(stableHeaders(viaSend));
    expect(whole.text).to.equal(viaSend.text);
    expect(whole.headers.etag).to.match(/^W\/"/);
  });

  it('When If-None-Match matches the answer\'s ETag, then it is 304 with no body, as Express answered it', async () => {
    const first = await request(t.app).get('/v1/echo/hello').expect(200);
    const again = await request(t.app).get('/v1/echo/hello').set('If-None-Match', first.headers.etag!).expect(304);
    expect(again.text).to.equal('');
  });

  it('When helmet\'s headers are recorded once at start, then they are the headers helmet sets on a real Express response', async () => {
    const plain = express();
    plain.use(helmet(SECURITY_HEADER_OPTIONS));
    plain.get('/', (_req, res) => res.send('ok'));
    const res = await request(plain).get('/').expect(200);
    const fromHelmet = stableHeaders(res).filter(([name]) => HELMET_NAMES.includes(name.toLowerCase()));
    expect(fromHelmet).to.deep.equal(recordHelmetHeaders(SECURITY_HEADER_OPTIONS).set.map(([n, v]) => [n, v]));
    expect(fromHelmet).to.have.length.greaterThan(5);
  });

  for (const [what, path, status, headers] of [
    ['a binder error (400)', '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=x', 400, {}],
    ['an anonymous report call (401)', '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1', 401, { [NO_KEY_HEADER]: '1' }],
    ['an unknown route (the legacy 404)', '/no/such/route', 404, {}],
    ['a page of the Express app (/health)', '/health', 200, {}],
  ] as const) {
    it(`When the answer is ${what}, then it carries the request id and every security header too`, async () => {
      const res = await request(t.app).get(path).set(headers).set('X-Request-Id', 'front-door-1').expect(status);
      expect(res.headers['x-request-id']).to.equal('front-door-1');
      for (const name of HELMET_NAMES) expect(res.headers, name).to.have.property(name);
    });
  }

  it('When the service listens through listen() (requests made with Express\'s prototypes), then it answers as the app mounted by supertest', async () => {
    const { server, url } = await listen(t.rawApp, 0, '127.0.0.1');
    try {
      expect((server.address() as AddressInfo).port).to.be.greaterThan(0);
      for (const path of ['/v1/echo/hello?format=xml', '/json/reply/EchoRequest?Message=hi', '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1', '/health', '/nope']) {
        const viaListen = await fetch(url + path, { headers: { 'X-ApiKey': t.apiKey } });
        const viaSupertest = await request(t.rawApp).get(path).set('X-ApiKey', t.apiKey);
        const body = await viaListen.text();
        expect(viaListen.status, path).to.equal(viaSupertest.status);
        expect(viaListen.headers.get('content-type'), path).to.equal(viaSupertest.headers['content-type'] ?? null);
        // The report's BuildTime differs per call, and its link names the host it was asked on.
        const stable = (text: string) => text.replace(/"BuildTime":\d+/, '').replace(/http:\/\/127\.0\.0\.1:\d+/, '');
        expect(stable(body), path).to.equal(stable(viaSupertest.text));
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
