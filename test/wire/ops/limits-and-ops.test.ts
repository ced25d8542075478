/** Limits (414, array items, callback length, time-out), safe headers, request ids, /health, /ready, /metrics. */
import { expect } from 'chai';
import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { SECURITY_HEADER_OPTIONS } from '../../../src/http/security-headers.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

describe('limits', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ config: { maxUrlLength: 2048, maxArrayItems: 5 } })));
  after(() => t.close());

  it('a URL over MAX_URL_LENGTH answers 414 with a ResponseStatus', async () => {
    const res = await request(t.app)
      .get(`/v1/echo/${'a'.repeat(2100)}`)
      .expect(414);
    expect(res.body.ResponseStatus).to.include({ ErrorCode: 'UriTooLong' });
    await request(t.app)
      .get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&x=${'b'.repeat(2100)}`)
      .expect(414);
    await request(t.app)
      .get(`/nowhere?x=${'b'.repeat(2100)}`)
      .expect(414);
  });

  it('an array over MAX_ARRAY_ITEMS answers 400 naming the field, in the query and in a JSON body', async () => {
    const q = await request(t.app)
      .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&locations=[1,2,3,4,5,6]')
      .expect(400);
    expect(q.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
    expect(q.body.ResponseStatus.Errors).to.deep.equal([
      { ErrorCode: 'SerializationException', FieldName: 'locations', Message: "'locations' has more than 5 items" },
    ]);
    const b = await request(t.app)
      .post('/json/reply/GetFlatRequest')
      .send({ CompanyId: 1, Filters: Array(6).fill('0a1b2c3d4e5f60718293a4b5c6d7e8f9') })
      .expect(400);
    expect(b.body.ResponseStatus.Errors[0].FieldName).to.equal('Filters');
    await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=10&Locations=20').expect(200);
  });

  it('a JSONP callback name over 128 characters answers 400; a shorter one is sanitized', async () => {
    // An operation's route and a page outside the contract (/types/metadata) alike.
    for (const path of ['/v1/echo/hi', '/types/metadata']) {
      const res = await request(t.app)
        .get(`${path}?callback=${'c'.repeat(129)}`)
        .expect(400);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.body.ResponseStatus.Errors[0].FieldName).to.equal('callback');
    }
    const ok = await request(t.app).get('/v1/echo/hi?callback=a<b>').expect(200);
    expect(ok.text).to.match(/^a_b_\(/);
  });

  it("every answer carries helmet's headers as helmet's own middleware sets them, and the request id", async () => {
    const plain = express().use(helmet(SECURITY_HEADER_OPTIONS), (_req, res) => void res.end());
    const expected = (await request(plain).get('/')).headers;
    const helmetNames = Object.keys(expected).filter(
      (name) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name),
    );
    expect(helmetNames).to.include('x-content-type-options');
    // The writer's one writeHead (echo, a 400, a 404 outside the contract), a step's own header first (a 401's
    // WWW-Authenticate), and the routes that write their answers themselves (health, the WSDL).
    const flat = '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=';
    const answers: [string, request.Test][] = [
      ['echo', request(t.app).get('/v1/echo/hi').expect(200)],
      ['400', request(t.app).get(`${flat}x`).expect(400)],
      ['404', request(t.app).get('/nowhere').expect(404)],
      ['401', request(t.app).get(`${flat}1`).set('X-ApiKey', 'rsk_unknown').expect(401)],
      ['health', request(t.app).get('/health').expect(200)],
      ['WSDL', request(t.app).get('/soap12?wsdl').expect(200)],
    ];
    for (const [answer, sent] of answers) {
      const res = await sent;
      for (const name of helmetNames) expect(res.headers[name], `${answer}: ${name}`).to.equal(expected[name]);
      expect(res.headers['x-request-id'], answer).to.match(/^[0-9a-f-]{36}$/);
    }
  });

  it('safe headers: no X-Powered-By, nosniff, frame options, request id generated or echoed', async () => {
    const res = await request(t.app).get('/v1/echo/hi').expect(200);
    expect(res.headers).to.not.have.property('x-powered-by');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['x-frame-options']).to.equal('SAMEORIGIN');
    expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    const echoed = await request(t.app).get('/v1/echo/hi').set('X-Request-Id', 'abc-123').expect(200);
    expect(echoed.headers['x-request-id']).to.equal('abc-123');
    const replaced = await request(t.app).get('/v1/echo/hi').set('X-Request-Id', 'bad id <script>').expect(200);
    expect(replaced.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  });
});

describe('time-out per request', () => {
  it(
    'a request running past REQUEST_TIMEOUT_MS answers 503 RequestTimeout with Retry-After, and the app keeps ' +
      'serving',
    async () => {
      const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
      await store.load(workedExampleBatch);
      const slow = Object.create(store) as LedgerStore;
      slow.sumPnlByAccountMonth = async (q) => {
        await new Promise((r) => setTimeout(r, 400));
        return store.sumPnlByAccountMonth(q);
      };
      const t = await createTestApp({ store: slow, config: { requestTimeoutMs: 100 } });
      try {
        const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(503);
        expect(res.body.ResponseStatus.ErrorCode).to.equal('RequestTimeout');
        expect(res.headers['retry-after']).to.equal('1');
        await new Promise((r) => setTimeout(r, 500)); // the late result is dropped without a fault
        await request(t.app).get('/v1/echo/after').expect(200);
      } finally {
        await store.close();
      }
    },
  );

  it(
    "requests in flight each time out at their own deadline, not an earlier one's, and answered ones never time " +
      'out',
    async () => {
      const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
      await store.load(workedExampleBatch);
      const slow = Object.create(store) as LedgerStore;
      slow.sumPnlByAccountMonth = async (q) => {
        await new Promise((r) => setTimeout(r, 600));
        return store.sumPnlByAccountMonth(q);
      };
      const t = await createTestApp({ store: slow, config: { requestTimeoutMs: 150 } });
      const timed = async (path: string) => {
        const sent = performance.now();
        const res = await request(t.app).get(path);
        return { status: res.status, sentAt: sent, answeredAt: performance.now() };
      };
      try {
        const first = timed('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1');
        await new Promise((r) => setTimeout(r, 80));
        const second = timed('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1');
        const echoes = await Promise.all(Array.from({ length: 5 }, (_, i) => timed(`/v1/echo/quick${i}`)));
        const [a, b] = await Promise.all([first, second]);
        expect([a.status, b.status]).to.deep.equal([503, 503]);
        expect(echoes.map((e) => e.status)).to.deep.equal([200, 200, 200, 200, 200]);
        expect(b.answeredAt - b.sentAt, 'the second request was answered before its own time-out').to.be.at.least(140);
        expect(b.answeredAt).to.be.greaterThan(a.answeredAt);
      } finally {
        await store.close();
      }
    },
  );
});

describe('operations endpoints', () => {
  it('/health is 200; /ready is 200 with a store and 503 ResponseStatus without', async () => {
    const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
    await store.load(workedExampleBatch);
    const t = await createTestApp({ store });
    const h = await request(t.app).get('/health').expect(200);
    expect(h.body).to.deep.equal({ Status: 'Healthy' });
    expect((await request(t.app).get('/ready').expect(200)).body).to.deep.equal({ Status: 'Ready', Store: 'duckdb' });
    await store.close();
    const down = await request(t.app).get('/ready').expect(503);
    expect(down.body.ResponseStatus.ErrorCode).to.equal('StoreUnavailable');
    await request(t.app).get('/health').expect(200);
    await request(t.app).get('/HEALTH').expect(200);
  });

  it('/metrics counts requests and latencies by route template and status, never by raw URL', async () => {
    const t = await createTestApp();
    await request(t.app).get('/v1/echo/one').expect(200);
    await request(t.app).get('/v1/echo/two').expect(200);
    await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(200);
    await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').set('x-test-no-key', '1').expect(401);
    await request(t.app).get('/not/a/route/123').expect(404);
    await request(t.app).get('/SOAP12?wsdl').expect(200);
    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    expect(res.text).to.contain('http_requests_total{method="GET",route="/v1/echo/{Message}",status="200"} 2');
    expect(res.text).to.contain(
      'http_requests_total{method="GET",route="/v1/Reporting/ProfitAndLoss/Flat",status="200"} 1',
    );
    expect(res.text).to.contain(
      'http_requests_total{method="GET",route="/v1/Reporting/ProfitAndLoss/Flat",status="401"} 1',
    );
    expect(res.text).to.contain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(res.text).to.contain('http_requests_total{method="GET",route="/soap12",status="200"} 1');
    expect(res.text).to.match(
      /http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/v1\/echo\/\{Message\}",status="200"\} \d+/,
    );
    expect(res.text).to.contain('process_resident_memory_bytes');
    expect(res.text).to.not.contain('/v1/echo/one');
    await t.close();
  });
});
