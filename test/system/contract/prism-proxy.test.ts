/**
 * Prism (@stoplight/prism-cli, pinned) in proxy mode with `--errors` in front of the real server, as a team runs it
 * against a deployment: every request of the valid set reaches the server and comes back without a violation (every
 * response validates against openapi/); every request of the invalid set is flagged by Prism and refused by the
 * server too; and the legacy leniencies OpenAPI cannot express are pinned as the known false positives the README
 * lists (Prism flags them, the server answers 200).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { OPENAPI_PATH } from '../../../src/contract/openapi-document.ts';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { NO_KEY_HEADER } from '../../support/test-app.ts';
import { testToolBin } from '../../support/test-tools.ts';

const PRISM = testToolBin('prism');

interface Call {
  name: string;
  method?: 'GET' | 'POST';
  url: string;
  body?: unknown;
  /** Send no API key. */
  anonymous?: boolean;
  /** A key scoped to company 1 only (instead of the test key scoped to every company). */
  companyOneKey?: boolean;
  /** The key as `Authorization: Bearer` instead of `X-ApiKey`. */
  bearer?: boolean;
}

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';
const HYPHENATED = '0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9';
const enc = encodeURIComponent;

/** Every operation, the documented input forms, and requests the server answers with a documented error. */
const VALID: Call[] = [
  { name: 'Echo', url: '/v1/echo/hello' },
  { name: 'Echo, encoded path value', url: `/v1/echo/${enc('Q1/Q2 report? #1 100%')}` },
  { name: 'Echo with format and JSONP', url: '/v1/echo/hello?format=json&callback=show' },
  { name: 'Echo anonymous (public)', url: '/v1/echo/hello', anonymous: true },
  { name: 'EchoReplyGet', url: '/json/reply/EchoRequest?Message=hi' },
  { name: 'EchoReplyPost', method: 'POST', url: '/json/reply/EchoRequest', body: { Message: 'hi' } },
  { name: 'GetFlat, CompanyId only', url: `${FLAT}?CompanyId=1` },
  {
    name: 'GetFlat, every option',
    url:
      `${FLAT}?CompanyId=1&UseAccountMapping=true&IncludeComputedColumns=true&OrderBy=AmountDescending&` +
      `UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29&Locations=10&Locations=20&` +
      `Filters=${DINE_IN}`,
  },
  {
    name: 'GetFlat, hyphenated and braced GUIDs',
    url: `${FLAT}?CompanyId=1&Filters=${HYPHENATED.toUpperCase()}&Filters=${enc(`{${HYPHENATED}}`)}`,
  },
  {
    name: 'GetFlat, yyyyMMdd and ISO date-time',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=20240101&EndDate=${enc('2024-02-29T23:59:59Z')}`,
  },
  {
    name: 'GetFlat, /Date(ms)/ and /Date(ms+hhmm)/ encoded',
    url:
      `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=${enc('/Date(1704067200000)/')}&` +
      `EndDate=${enc('/Date(1709164800000+0100)/')}`,
  },
  {
    name: 'GetFlat, leap day',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=2024-02-29&EndDate=2024-02-29`,
  },
  ...['Default', 'AccountNumber', 'AccountName', 'AmountAscending'].map((o) => ({
    name: `GetFlat, OrderBy=${o}`,
    url: `${FLAT}?CompanyId=1&OrderBy=${o}`,
  })),
  { name: 'GetFlat, empty OrderBy', url: `${FLAT}?CompanyId=1&OrderBy=` },
  { name: 'GetFlat, JSONP', url: `${FLAT}?CompanyId=1&callback=show` },
  { name: 'GetFlat, Bearer key', url: `${FLAT}?CompanyId=1`, bearer: true },
  { name: 'GetFlat, a location of another company (400)', url: `${FLAT}?CompanyId=1&Locations=99` },
  { name: 'GetFlat, a company outside the key (403)', url: `${FLAT}?CompanyId=2`, companyOneKey: true },
  { name: 'GetFlatReplyGet', url: `/json/reply/GetFlatRequest?CompanyId=1&Locations=10&IncludeComputedColumns=true` },
  {
    name: 'GetFlatReplyPost',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: {
      CompanyId: 1,
      UseCustomDateRange: true,
      StartDate: '/Date(1704067200000)/',
      EndDate: '2024-02-29',
      Locations: [10],
      Filters: [HYPHENATED],
    },
  },
  {
    name: 'GetFlatReplyPost with format',
    method: 'POST',
    url: '/json/reply/GetFlatRequest?format=json',
    body: { CompanyId: 1 },
  },
];

/** Requests outside the contract: Prism must flag each, and the server refuses each on its own. */
const INVALID: Call[] = [
  { name: 'no CompanyId', url: `${FLAT}?IncludeComputedColumns=true` },
  {
    name: 'no CompanyId in the body',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: { IncludeComputedColumns: true },
  },
  { name: 'no API key on the report', url: `${FLAT}?CompanyId=1`, anonymous: true },
  { name: 'CompanyId not an integer', url: `${FLAT}?CompanyId=abc` },
  { name: 'GUID of 31 digits', url: `${FLAT}?CompanyId=1&Filters=${DINE_IN.slice(1)}` },
  { name: 'GUID with mismatched braces', url: `${FLAT}?CompanyId=1&Filters=${enc(`{${HYPHENATED})`)}` },
  {
    name: 'month 13, day 45',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=2025-13-45&EndDate=2025-12-31`,
  },
  { name: 'February 30', url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=2025-02-30&EndDate=2025-12-31` },
  {
    name: 'February 29 of a common year',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=20250229&EndDate=20251231`,
  },
  {
    name: 'a date in words',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=yesterday&EndDate=2025-12-31`,
  },
  { name: 'unknown OrderBy', url: `${FLAT}?CompanyId=1&OrderBy=Sideways` },
  { name: 'boolean in words', url: `${FLAT}?CompanyId=1&IncludeComputedColumns=maybe` },
  {
    name: 'a location that is not a number, in the body',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: { CompanyId: 1, Locations: ['x'] },
  },
  { name: 'a JSONP callback over 128 characters', url: `/v1/echo/hello?callback=${'c'.repeat(129)}` },
  { name: 'a report token of the wrong shape', url: '/v1/Reporting/ProfitAndLoss/Flat/Reports/not-a-token' },
];

/**
 * Limits of the server the contract states outside JSON Schema's keywords (MAX_ARRAY_ITEMS as `x-max-items`: a
 * `maxItems: 1000` made tools build 1000-item cases and tuple types): Prism lets them through, the server refuses them.
 */
const SERVER_LIMITS: (Call & { status: number; field: string })[] = [
  {
    name: '1001 locations in the body',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: { CompanyId: 1, Locations: Array.from({ length: 1001 }, (_, i) => i + 1) },
    status: 400,
    field: 'Locations',
  },
  {
    name: '1001 filters in the body',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: { CompanyId: 1, Filters: Array.from({ length: 1001 }, () => DINE_IN) },
    status: 400,
    field: 'Filters',
  },
  {
    name: '1001 locations in the query (over MAX_URL_LENGTH too: 414)',
    url: `${FLAT}?CompanyId=1&${Array.from({ length: 1001 }, (_, i) => `Locations=${i + 1}`).join('&')}`,
    status: 414,
    field: '',
  },
];

/** Legacy leniencies OpenAPI cannot express (README, "Known false positives of conformance tools"). */
const FALSE_POSITIVES: Call[] = [
  { name: 'array as [1,2]', url: `${FLAT}?CompanyId=1&Locations=${enc('[10,20]')}` },
  { name: 'array as 1,2', url: `${FLAT}?CompanyId=1&Locations=10,20` },
  { name: 'boolean as 1', url: `${FLAT}?CompanyId=1&IncludeComputedColumns=1` },
  { name: 'boolean as on', url: `${FLAT}?CompanyId=1&IncludeComputedColumns=on` },
  {
    name: 'dates as 4.5 parsed them beyond the pattern (dd/MM/yyyy, month names)',
    url: `${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=${enc('01/02/2024')}&EndDate=${enc('29 Feb 2024')}`,
  },
  { name: 'route in another case', url: '/V1/REPORTING/ProfitAndLoss/flat?CompanyId=1' },
  { name: 'enum value in another case', url: `${FLAT}?CompanyId=1&OrderBy=amountdescending` },
  {
    name: 'body property names in another case',
    method: 'POST',
    url: '/json/reply/GetFlatRequest',
    body: { companyid: 1 },
  },
  { name: 'format suffix on the report link', url: 'LINK.json' },
  { name: '?apikey= outside the report link', url: `${FLAT}?CompanyId=1&apikey=KEY`, anonymous: true },
];

function startPrism(upstream: string, port: number): Promise<{ child: ChildProcess; log: string[] }> {
  const log: string[] = [];
  const child = spawn(
    PRISM,
    ['proxy', OPENAPI_PATH, upstream, '--errors', '--port', String(port), '--host', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${log.join('')}`)), 90_000);
    const read = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (/Prism is listening/.test(chunk.toString())) {
        clearTimeout(timer);
        resolve({ child, log });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`Prism exited (${code}):\n${log.join('')}`)));
  });
}

interface Answer {
  status: number;
  contentType: string;
  violations: string | null;
  text: string;
}

/** Prism's own answers are problem+json with a stoplight.io error type. */
const flaggedByPrism = (a: Answer) =>
  a.contentType.startsWith('application/problem+json') && /stoplight\.io\/prism\/errors/.test(a.text);

describe('Prism proxy (--errors) in front of the server', function () {
  this.timeout(180_000);
  let t: ListeningTestApp;
  let prism: { child: ChildProcess; log: string[] };
  let prismUrl: string;
  let companyOneKey: string;
  let link: string;

  async function send(base: string, call: Call): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const key = call.companyOneKey ? companyOneKey : t.apiKey;
    if (!call.anonymous) headers[call.bearer ? 'Authorization' : 'X-ApiKey'] = call.bearer ? `Bearer ${key}` : key;
    else headers[NO_KEY_HEADER] = '1'; // the test app would add its key otherwise
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    const url = call.url.replace(/^LINK/, link).replace('apikey=KEY', `apikey=${t.apiKey}`);
    const res = await fetch(base + url, {
      method: call.method ?? 'GET',
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      violations: res.headers.get('sl-violations'),
      text: await res.text(),
    };
  }

  before(async () => {
    t = await listenTestApp();
    companyOneKey = await t.keyFor(1);
    const port = await freePort();
    prism = await startPrism(t.url, port);
    prismUrl = `http://127.0.0.1:${port}`;
    const report = (await (
      await fetch(`${t.url}${FLAT}?CompanyId=1`, { headers: { 'X-ApiKey': t.apiKey } })
    ).json()) as { Url: string };
    link = new URL(report.Url).pathname;
  });
  after(async () => {
    prism?.child.kill('SIGTERM');
    await t?.close();
  });

  it('passes every valid request through with no violation, and every response validates', async () => {
    for (const call of [
      ...VALID,
      { name: 'GetFlatReport', url: 'LINK' },
      { name: 'GetFlatReport as CSV', url: 'LINK?format=csv' },
    ]) {
      const [viaPrism, direct] = [await send(prismUrl, call), await send(t.url, call)];
      expect(flaggedByPrism(viaPrism), `${call.name}: ${viaPrism.text.slice(0, 600)}`).to.equal(false);
      expect(viaPrism.violations, call.name).to.equal(null);
      expect(viaPrism.status, call.name).to.equal(direct.status);
    }
    expect(prism.log.join('').match(/violation/gi) ?? [], prism.log.join('').slice(-2000)).to.deep.equal([]);
  });

  it('flags every invalid request, which the server refuses too', async () => {
    for (const call of INVALID) {
      const [viaPrism, direct] = [await send(prismUrl, call), await send(t.url, call)];
      expect(
        flaggedByPrism(viaPrism),
        `${call.name}: Prism answered ${viaPrism.status} ${viaPrism.text.slice(0, 300)}`,
      ).to.equal(true);
      expect(direct.status, `${call.name}: the server answered ${direct.status}`).to.be.oneOf([400, 401, 414]);
      expect(JSON.parse(direct.text), call.name).to.have.nested.property('ResponseStatus.ErrorCode');
    }
  });

  it("lets the server's own limits through (x-max-items), which the server refuses naming the field", async () => {
    for (const call of SERVER_LIMITS) {
      const [viaPrism, direct] = [await send(prismUrl, call), await send(t.url, call)];
      expect(
        flaggedByPrism(viaPrism),
        `${call.name}: Prism answered ${viaPrism.status} ${viaPrism.text.slice(0, 300)}`,
      ).to.equal(false);
      expect(viaPrism.violations, call.name).to.equal(null);
      expect([viaPrism.status, direct.status], call.name).to.deep.equal([call.status, call.status]);
      const status = (JSON.parse(direct.text) as { ResponseStatus: { Errors?: { FieldName: string }[] } })
        .ResponseStatus;
      if (call.field)
        expect(
          status.Errors?.map((e) => e.FieldName),
          call.name,
        ).to.deep.equal([call.field]);
    }
  });

  it('pins the known false positives: Prism flags the legacy leniency, the server answers 200', async () => {
    for (const call of FALSE_POSITIVES) {
      const [viaPrism, direct] = [await send(prismUrl, call), await send(t.url, call)];
      expect(
        flaggedByPrism(viaPrism),
        `${call.name}: Prism answered ${viaPrism.status} ${viaPrism.text.slice(0, 300)}`,
      ).to.equal(true);
      expect(direct.status, `${call.name}: ${direct.text.slice(0, 300)}`).to.equal(200);
    }
  });
});
