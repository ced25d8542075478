/**
 * Every route × {no key, wrong key, revoked key, other company's key, right company's key}, on the app as deployed
 * (no default key), each key sent as X-ApiKey, Bearer, HTTP Basic user name and ?apikey=. Reports need a key
 * covering CompanyId (401 / 403 as ResponseStatus); echo is public and names the key's company.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { generateApiKey } from '../../../src/auth/api-keys.ts';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

type Case = 'none' | 'wrong' | 'revoked' | 'other' | 'right';
type Query = Record<string, string>;
interface Route {
  name: string;
  echo: boolean;
  send: (app: Express, headers: Record<string, string>, query: Query) => request.Test;
}

/** The path of a report link (GetFlatResponse.Url), filled in before the matrix runs. */
let reportLinkPath = '';

const ROUTES: Route[] = [
  {
    name: 'GET /v1/Reporting/ProfitAndLoss/Flat',
    echo: false,
    send: (a, h, q) => request(a).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').query(q).set(h),
  },
  {
    name: 'GET /json/reply/GetFlatRequest',
    echo: false,
    send: (a, h, q) => request(a).get('/json/reply/GetFlatRequest?CompanyId=1').query(q).set(h),
  },
  {
    name: 'POST /json/reply/GetFlatRequest',
    echo: false,
    send: (a, h, q) => request(a).post('/json/reply/GetFlatRequest').query(q).set(h).send({ CompanyId: 1 }),
  },
  {
    name: 'GET report link (Url)',
    echo: false,
    send: (a, h, q) =>
      request(a)
        .get(reportLinkPath)
        .query({ format: 'json', ...q })
        .set(h),
  },
  { name: 'GET /v1/echo/{Message}', echo: true, send: (a, h, q) => request(a).get('/v1/echo/hi').query(q).set(h) },
  {
    name: 'GET /json/reply/EchoRequest',
    echo: true,
    send: (a, h, q) => request(a).get('/json/reply/EchoRequest?Message=hi').query(q).set(h),
  },
  {
    name: 'POST /json/reply/EchoRequest',
    echo: true,
    send: (a, h, q) => request(a).post('/json/reply/EchoRequest').query(q).set(h).send({ Message: 'hi' }),
  },
];

function credentials(via: string, key: string | undefined): { headers: Record<string, string>; query: Query } {
  if (key === undefined) return { headers: {}, query: {} };
  if (via === 'Bearer') return { headers: { Authorization: `Bearer ${key}` }, query: {} };
  if (via === 'Basic')
    return { headers: { Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }, query: {} };
  if (via === 'apikey') return { headers: {}, query: { apikey: key } };
  return { headers: { 'X-ApiKey': key }, query: {} };
}

describe('auth matrix: route × key', () => {
  let t: TestApp;
  const keys = {} as Record<Case, string | undefined>;
  before(async () => {
    t = await createTestApp();
    await t.store.load({
      companies: [{ id: 2, name: 'Second Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
    });
    keys.none = undefined;
    keys.wrong = generateApiKey();
    keys.revoked = await t.keyFor(1);
    const revokedId = (await t.store.listApiKeys()).at(-1)!.id;
    expect(await t.store.revokeApiKey(revokedId)).to.equal(true);
    keys.other = await t.keyFor(2);
    keys.right = await t.keyFor(1);
    const built = await request(t.rawApp)
      .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1')
      .set('X-ApiKey', keys.right)
      .expect(200);
    reportLinkPath = new URL(built.body.Url).pathname;
  });
  after(() => t.close());

  const expected: Record<Case, { report: [number, string?]; echo: [number, string] }> = {
    none: { report: [401, 'Unauthorized'], echo: [200, TEST_COMPANY_NAME] },
    wrong: { report: [401, 'Unauthorized'], echo: [401, 'Unauthorized'] },
    revoked: { report: [401, 'Unauthorized'], echo: [401, 'Unauthorized'] },
    other: { report: [403, 'Forbidden'], echo: [200, 'Second Co'] },
    right: { report: [200], echo: [200, 'Worked Example Co'] },
  };

  for (const route of ROUTES) {
    for (const c of Object.keys(expected) as Case[]) {
      for (const via of c === 'none' ? ['-'] : ['X-ApiKey', 'Bearer', 'Basic', 'apikey']) {
        const want = route.echo ? expected[c].echo : expected[c].report;
        it(
          `${route.name} × ${c} key${c === 'none' ? '' : ` (${via})`} ` + `→ ${want[0]}${want[1] ? ` ${want[1]}` : ''}`,
          async () => {
            const { headers, query } = credentials(via, keys[c]);
            const res = await route.send(t.rawApp, headers, query);
            expect(res.status, res.text).to.equal(want[0]);
            expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
            if (want[0] >= 400) {
              expect(res.body.ResponseStatus.ErrorCode).to.equal(want[1]);
              expect(res.body.ResponseStatus.Message).to.be.a('string').and.not.equal('');
              // 401 is decided before the service (no Errors key, as 4.5 wrote such errors);
              // 403 inside it (Errors: []).
              expect(res.body.ResponseStatus.Errors).to.deep.equal(want[0] === 401 ? undefined : []);
              if (want[0] === 401) expect(res.headers['www-authenticate']).to.match(/^Bearer /);
              // The message the README's "When something goes wrong" table names.
              if (want[0] === 401)
                expect(res.body.ResponseStatus.Message).to.match(
                  c === 'none' ? /^An API key is required: / : /^The API key is unknown or revoked\.$/,
                );
            } else if (route.echo) {
              expect(res.body.CompanyName).to.equal(want[1]);
            } else {
              expect(res.body.ReportModel.Rows.length).to.be.greaterThan(0);
            }
          },
        );
      }
    }
  }

  it('a key for several companies reads each of them, and no other', async () => {
    const both = await t.keyFor(1, 2);
    await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').set('X-ApiKey', both).expect(200);
    // company 2 exists but has no chart: the key passes, the report then validates the company
    const two = await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=2').set('X-ApiKey', both);
    expect(two.status).to.not.be.oneOf([401, 403]);
    await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=3').set('X-ApiKey', both).expect(403);
  });

  it('an unknown company is 403 for a key that does not cover it (existence is not revealed)', async () => {
    const res = await request(t.rawApp)
      .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=99')
      .set('X-ApiKey', keys.right!)
      .expect(403);
    expect(res.body.ResponseStatus.ErrorCode).to.equal('Forbidden');
  });

  it(
    'without a key the report answers 401 before reading its input; to a JSONP caller as plain JSON (raised ' +
      'before the service)',
    async () => {
      const bad = await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=abc');
      expect(bad.status).to.equal(401);
      const jsonp = await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&callback=cb');
      expect(jsonp.status).to.equal(401);
      expect(jsonp.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(jsonp.text).to.match(/^\{"ResponseStatus":\{"ErrorCode":"Unauthorized"/);
    },
  );

  it('empty, oversized and other-scheme credentials', async () => {
    await request(t.rawApp).get('/v1/echo/hi').set('X-ApiKey', '').expect(401);
    await request(t.rawApp).get('/v1/echo/hi').set('Authorization', 'Bearer').expect(401);
    await request(t.rawApp).get('/v1/echo/hi').set('X-ApiKey', 'x'.repeat(5000)).expect(401);
    // HTTP Basic: the user name is the key ('u' is not one); an empty user name is an unusable key.
    await request(t.rawApp).get('/v1/echo/hi').set('Authorization', 'Basic dTpw').expect(401);
    await request(t.rawApp)
      .get('/v1/echo/hi')
      .set('Authorization', `Basic ${Buffer.from(':p').toString('base64')}`)
      .expect(401);
    await request(t.rawApp)
      .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1')
      .set('Authorization', 'Basic dTpw')
      .expect(401);
    const digest = await request(t.rawApp).get('/v1/echo/hi').set('Authorization', 'Digest username="x"').expect(200);
    expect(digest.body.CompanyName).to.equal(TEST_COMPANY_NAME);
  });

  it('only the hash of a key is stored', async () => {
    const key = await t.keyFor(1);
    const stored = await t.store.listApiKeys();
    expect(JSON.stringify(stored)).to.not.contain(key);
    expect(stored.every((k) => /^[0-9a-f]{64}$/.test(k.keyHash))).to.equal(true);
  });
});
