/**
 * Every error form the server sends is one the contract declares for that operation and status: JSONP-wrapped errors
 * raised by the service (400, 403, 404 as text/javascript) and the report link's 404 in the format its suffix asked
 * for (CSV, HTML), read from the operation records of openapi/.
 */
import { expect } from 'chai';
import request from 'supertest';
import { contractOperations, responseFor } from '../../../src/contract/operations.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';

describe('error answers the contract declares', () => {
  let t: TestApp;
  let forged: string;
  before(async () => {
    t = await createTestApp();
    const report = await request(t.app).get(`${FLAT}?CompanyId=1`).expect(200);
    const token = new URL(report.body.Url as string).pathname.split('/').pop()!;
    // Same shape, another payload: the signature no longer verifies.
    forged = `${Buffer.from('{"v":1,"c":1}').toString('base64url')}.${token.split('.')[1]}`;
  });
  after(() => t.close());

  const declared = (operationId: string, status: number) =>
    responseFor(contractOperations().byId(operationId), status)?.mediaTypes ?? [];
  const mediaType = (res: request.Response) => String(res.headers['content-type']).split(';')[0]!;

  const cases: {
    name: string;
    operationId: string;
    status: number;
    url: () => string;
    key?: () => Promise<string>;
    type: string;
    body: RegExp;
  }[] = [
    {
      name: 'JSONP 400 raised by the service',
      operationId: 'GetFlat',
      status: 400,
      url: () => `${FLAT}?CompanyId=1&Locations=99&callback=cb`,
      type: 'text/javascript',
      body: /^cb\(\{"ResponseStatus":\{"ErrorCode":"ArgumentException"/,
    },
    {
      name: 'JSONP 403 (a key of another company)',
      operationId: 'GetFlat',
      status: 403,
      url: () => `${FLAT}?CompanyId=2&callback=cb`,
      key: () => t.keyFor(1),
      type: 'text/javascript',
      body: /^cb\(\{"ResponseStatus":\{"ErrorCode":"Forbidden"/,
    },
    {
      name: 'JSONP 404 of a report link that does not verify',
      operationId: 'GetFlatReport',
      status: 404,
      url: () => `${FLAT}/Reports/${forged}?callback=cb`,
      type: 'text/javascript',
      body: /^cb\(\{"ResponseStatus":\{"ErrorCode":"NotFound"/,
    },
    {
      name: "the report link's 404 as CSV",
      operationId: 'GetFlatReport',
      status: 404,
      url: () => `${FLAT}/Reports/${forged}.csv`,
      type: 'text/csv',
      body: /^ResponseStatus\r\n"\{ErrorCode:NotFound,/,
    },
    {
      name: "the report link's 404 as HTML",
      operationId: 'GetFlatReport',
      status: 404,
      url: () => `${FLAT}/Reports/${forged}.html`,
      type: 'text/html',
      body: /NotFound/,
    },
    {
      name: "the report link's 404 as JSON",
      operationId: 'GetFlatReport',
      status: 404,
      url: () => `${FLAT}/Reports/${forged}`,
      type: 'application/json',
      body: /^\{"ResponseStatus":\{"ErrorCode":"NotFound"/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.type}, declared for ${c.operationId}`, async () => {
      const req = request(t.app).get(c.url());
      if (c.key) req.set('X-ApiKey', await c.key());
      const res = await req.expect(c.status);
      expect(mediaType(res)).to.equal(c.type);
      expect(res.text).to.match(c.body);
      expect(declared(c.operationId, c.status)).to.include(c.type);
    });
  }

  it(
    'every operation that takes a callback declares text/javascript on the errors its service raises (400, 403 ' +
      'where secured, 500, 503)',
    () => {
      for (const op of contractOperations().all) {
        for (const status of [400, 500, 503, ...(op.secured ? [403] : [])]) {
          expect(declared(op.operationId, status), `${op.operationId} ${status}`).to.include('text/javascript');
        }
      }
    },
  );
});
