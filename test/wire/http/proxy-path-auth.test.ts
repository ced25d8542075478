/**
 * Deployment settings on the real app: PUBLIC_BASE_URL (every absolute link), TRUST_PROXY (X-Forwarded-* only from
 * the proxies named; the access log names the client), BASE_PATH (every route, page, WSDL and link under it, the
 * legacy 404/405 inside it), AUTH=none (every operation public), and the API key as HTTP Basic user name.
 */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { parse } from 'yaml';
import { parseBasePath, parsePublicBaseUrl, parseTrustProxy } from '../../../src/config-parsers.ts';
import type { Server } from 'node:http';
import { listen } from '../../../src/server.ts';
import { expectNativeTypesIndex } from '../../support/native-types-index.ts';
import { SOAP12_NS, TYPES_NS, parseFault, soap12Envelope } from '../../support/soap.ts';
import { createTestApp, TEST_COMPANY_NAME, type TestApp, type TestAppOptions } from '../../support/test-app.ts';

const REPORT =
  '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-03-31';
const FORWARDED = {
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'reports.example.com',
  'X-Forwarded-For': '203.0.113.7',
};

/** The absolute links one app writes, over one listening port: report Url, WSDL address, native types' BaseUrl. */
async function links(t: TestApp, prefix = '', headers: Record<string, string> = {}) {
  const { server } = await listen(t.rawApp, 0, '127.0.0.1');
  try {
    const report = await request(server)
      .get(prefix + REPORT)
      .set(headers)
      .set('X-ApiKey', t.apiKey)
      .expect(200);
    const wsdl = await request(server).get(`${prefix}/soap12?wsdl`).set(headers).expect(200);
    const types = await request(server).get(`${prefix}/types/typescript`).set(headers).expect(200);
    return {
      url: report.body.Url as string,
      wsdlAddress: /<soap12:address location="([^"]+)"/.exec(wsdl.text)![1],
      typesBaseUrl: /^BaseUrl: (.+)$/m.exec(types.text)![1],
    };
  } finally {
    await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
  }
}

async function appWith(config: TestAppOptions['config'], logger?: TestAppOptions['logger']): Promise<TestApp> {
  return createTestApp({ config, logger });
}

/** A pino logger whose JSON lines are collected, to read the access log a request wrote. */
function capturedLog() {
  const lines: { req?: { url: string; remoteAddress: string } }[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

describe('deployment: settings parsed strictly', () => {
  it('BASE_PATH, PUBLIC_BASE_URL and TRUST_PROXY accept what they document and refuse the rest', () => {
    expect(parseBasePath('/reporting/')).to.equal('/reporting');
    expect(parseBasePath('reporting')).to.equal('/reporting');
    expect(parseBasePath('/')).to.equal('');
    for (const bad of ['/a b', '/../x', '/x?y', '/x#', '/%2e'])
      expect(() => parseBasePath(bad), bad).to.throw(/BASE_PATH/);
    expect(parsePublicBaseUrl('https://reports.example.com/reporting/')).to.equal(
      'https://reports.example.com/reporting',
    );
    expect(parsePublicBaseUrl('http://10.0.0.5:8080')).to.equal('http://10.0.0.5:8080');
    for (const bad of ['reports.example.com', 'ftp://x', 'https://x/?q=1', 'https://u:p@x', 'https://x/a b']) {
      expect(() => parsePublicBaseUrl(bad), bad).to.throw(/PUBLIC_BASE_URL/);
    }
    expect(parseTrustProxy('false')).to.equal(false);
    expect(parseTrustProxy('true')).to.equal(true);
    expect(parseTrustProxy('2')).to.equal(2);
    expect(parseTrustProxy('loopback, 10.0.0.0/8')).to.deep.equal(['loopback', '10.0.0.0/8']);
    expect(() => parseTrustProxy('10.0.0.999')).to.throw(/TRUST_PROXY/);
  });
});

describe('deployment: links behind a proxy', () => {
  it('by default X-Forwarded-* from anyone are ignored: links name the Host the request was sent to', async () => {
    const t = await appWith({});
    try {
      const got = await links(t, '', FORWARDED);
      expect(got.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\//);
      const origin = new URL(got.url).origin;
      expect(got.wsdlAddress).to.equal(`${origin}/soap12`);
      expect(got.typesBaseUrl).to.equal(origin);
    } finally {
      await t.close();
    }
  });

  it(
    'TRUST_PROXY naming the proxy: its X-Forwarded-Proto/Host make the links, X-Forwarded-For is the logged ' +
      'client',
    async () => {
      const { lines, logger } = capturedLog();
      const t = await appWith({ trustProxy: ['loopback'] }, logger);
      try {
        const got = await links(t, '', FORWARDED);
        expect(got.url).to.match(/^https:\/\/reports\.example\.com\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\//);
        expect(got.wsdlAddress).to.equal('https://reports.example.com/soap12');
        expect(got.typesBaseUrl).to.equal('https://reports.example.com');
        const logged = lines.filter((l) => l.req?.url.startsWith('/v1/Reporting'));
        expect(logged).to.have.length(1);
        expect(logged[0]!.req!.remoteAddress).to.equal('203.0.113.7');
      } finally {
        await t.close();
      }
    },
  );

  it('TRUST_PROXY naming another proxy: headers from this peer are ignored, the log names the peer', async () => {
    const { lines, logger } = capturedLog();
    const t = await appWith({ trustProxy: ['10.1.2.3'] }, logger);
    try {
      const got = await links(t, '', FORWARDED);
      expect(got.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(lines.find((l) => l.req?.url.startsWith('/v1/Reporting'))!.req!.remoteAddress).to.match(/127\.0\.0\.1$/);
    } finally {
      await t.close();
    }
  });

  it(
    'PUBLIC_BASE_URL: every absolute link starts with it, whatever the request says; page links take its ' + 'path',
    async () => {
      const t = await appWith({ publicBaseUrl: 'https://reports.example.com/finance', trustProxy: ['loopback'] });
      try {
        const got = await links(t, '', { ...FORWARDED, 'X-Forwarded-Host': 'internal.example' });
        expect(got.url).to.match(
          /^https:\/\/reports\.example\.com\/finance\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\/[\w-]+\.[\w-]+$/,
        );
        expect(got.wsdlAddress).to.equal('https://reports.example.com/finance/soap12');
        expect(got.typesBaseUrl).to.equal('https://reports.example.com/finance');
        // The proxy strips /finance: the token path opens here, and the page's own links carry the public path.
        const token = new URL(got.url).pathname.replace('/finance', '');
        const page = await request(t.rawApp).get(`${token}.html`).set('X-ApiKey', t.apiKey).expect(200);
        expect(page.text).to.contain('<script src="/finance/assets/report-page.js"></script>');
        expect(page.text).to.contain('href="/finance/v1/Reporting/ProfitAndLoss/Flat/Reports/');
        const docs = await request(t.rawApp).get('/docs').expect(200);
        expect(docs.text).to.contain('<script src="/finance/docs/assets/swagger-ui-bundle.js"></script>');
      } finally {
        await t.close();
      }
    },
  );
});

describe('deployment: BASE_PATH=/reporting', () => {
  let t: TestApp;
  before(async () => {
    t = await appWith({ basePath: '/reporting' });
  });
  after(() => t.close());

  it('serves the operations, report links, report page and its assets under the prefix', async () => {
    const echo = await request(t.rawApp).get('/reporting/v1/echo/hi').expect(200);
    expect(echo.body).to.deep.equal({ Message: 'hi', CompanyName: TEST_COMPANY_NAME, ResponseStatus: {} });
    await request(t.rawApp).post('/reporting/json/reply/EchoRequest').send({ Message: 'x' }).expect(200);
    const got = await links(t, '/reporting');
    const origin = new URL(got.url).origin;
    expect(new URL(got.url).pathname).to.match(/^\/reporting\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\//);
    expect(got.wsdlAddress).to.equal(`${origin}/reporting/soap12`);
    expect(got.typesBaseUrl).to.equal(`${origin}/reporting`);
    const linkPath = new URL(got.url).pathname;
    const json = await request(t.rawApp).get(`${linkPath}.json`).set('X-ApiKey', t.apiKey).expect(200);
    expect(new URL(json.body.Url as string).pathname).to.equal(linkPath);
    const page = await request(t.rawApp).get(linkPath).set('Accept', 'text/html').set('X-ApiKey', t.apiKey).expect(200);
    for (const asset of [
      '/reporting/assets/report-page.js',
      '/reporting/assets/chart.umd.min.js',
      '/reporting/assets/report-page.css',
    ]) {
      expect(page.text).to.contain(asset);
      await request(t.rawApp).get(asset).expect(200);
    }
    expect(page.text).to.contain(`href="${linkPath}.csv"`);
    await request(t.rawApp)
      .get(`${linkPath}.csv`)
      .set('X-ApiKey', t.apiKey)
      .expect(200)
      .expect('Content-Type', /text\/csv/);
  });

  it('/types links the native-types routes under the prefix, each of which answers', () =>
    expectNativeTypesIndex(t.rawApp, '/reporting'));

  it(
    'serves SOAP, the docs, the contract (naming the prefix as its server) and the operations endpoints under ' + 'it',
    async () => {
      const fault = await request(t.rawApp)
        .post('/reporting/soap12')
        .set('Content-Type', 'application/soap+xml; charset=utf-8')
        .send(soap12Envelope(`<EchoRequest xmlns="${TYPES_NS}"><Message>hi</Message></EchoRequest>`))
        .expect(400);
      expect(parseFault(fault.text)).to.include({
        envelopeNs: SOAP12_NS,
        reason: "The operation 'EchoRequest' does not exist for this service",
      });
      const docs = await request(t.rawApp).get('/reporting/docs').expect(200);
      expect(docs.text)
        .to.contain('<script src="/reporting/docs/assets/swagger-ui-bundle.js"></script>')
        .and.contain('href="/reporting/soap12?wsdl"');
      expect((await request(t.rawApp).get('/reporting/docs/docs.js').expect(200)).text).to.contain(
        "url: '/reporting/openapi.json'",
      );
      await request(t.rawApp).get('/reporting/docs/assets/swagger-ui.css').expect(200);
      const json = await request(t.rawApp).get('/reporting/openapi.json').expect(200);
      expect(JSON.parse(json.text).servers).to.deep.equal([{ url: '/reporting' }]);
      const yaml = await request(t.rawApp).get('/reporting/openapi.yaml').expect(200);
      expect(parse(yaml.text)).to.deep.equal(JSON.parse(json.text));
      for (const path of ['/reporting/health', '/reporting/ready', '/reporting/metrics'])
        await request(t.rawApp).get(path).expect(200);
    },
  );

  it('the legacy 404 and 405 rules apply inside the prefix; outside it nothing is served', async () => {
    const notFound = await request(t.rawApp).get('/reporting/nope').expect(404);
    expect(notFound.text).to.equal('404');
    const unknownOp = await request(t.rawApp).post('/reporting/json/reply/NoSuchRequest').send({}).expect(405);
    expect(unknownOp.body.ResponseStatus.ErrorCode).to.be.a('string');
    await request(t.rawApp).put('/reporting/json/reply/EchoRequest').send({}).expect(405);
    await request(t.rawApp).get('/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(401);
    for (const outside of ['/v1/echo/hi', '/soap12?wsdl', '/health', '/reportingx/v1/echo/hi', '/docs']) {
      const res = await request(t.rawApp).get(outside).expect(404);
      expect(res.text, outside).to.contain('under /reporting/');
    }
  });
});

describe('deployment: AUTH modes and key transports', () => {
  it('AUTH=none: every operation answers without a key, credentials are not read, report links open', async () => {
    const t = await appWith({ auth: 'none' });
    try {
      const report = await request(t.rawApp).get(REPORT).expect(200);
      expect(report.body.ReportModel.Rows.length).to.be.greaterThan(0);
      await request(t.rawApp).get(REPORT).set('X-ApiKey', 'rsk_not-a-key').expect(200);
      await request(t.rawApp).post('/json/reply/GetFlatRequest').send({ CompanyId: 1 }).expect(200);
      const link = new URL(report.body.Url as string).pathname;
      await request(t.rawApp).get(`${link}.json`).expect(200);
      const echo = await request(t.rawApp).get('/v1/echo/hi').set('Authorization', 'Bearer nonsense').expect(200);
      expect(echo.body.CompanyName).to.equal(TEST_COMPANY_NAME);
      // Input rules are unchanged.
      await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=abc').expect(400);
    } finally {
      await t.close();
    }
  });

  it('AUTH=apikey (the default): the key as HTTP Basic user name works like the other transports', async () => {
    const t = await appWith({});
    try {
      const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      await request(t.rawApp).get(REPORT).expect(401);
      await request(t.rawApp).get(REPORT).set('Authorization', basic(t.apiKey)).expect(200);
      await request(t.rawApp).get(REPORT).set('Authorization', basic(t.apiKey, 'anything')).expect(200);
      const other = await t.keyFor(99);
      await request(t.rawApp).get(REPORT).set('Authorization', basic(other)).expect(403);
      await request(t.rawApp).get(REPORT).set('Authorization', basic('rsk_unknown')).expect(401);
      await request(t.rawApp).get(REPORT).set('Authorization', 'Basic %%%').expect(401);
    } finally {
      await t.close();
    }
  });
});
