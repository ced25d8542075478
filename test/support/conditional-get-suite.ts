/**
 * Conditional GET of the report operations (issue 34, goal 6), a suite each store runs over the worked example:
 * test/wire/http/conditional-get.test.ts (DuckDB) and test/system/http/conditional-get-postgres.test.ts (PostgreSQL).
 * That no report was built is read from the store's count of P&L sums (LedgerStore.indexStats, /metrics).
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { contractOperations, responseFor } from '../../src/contract/operations.ts';
import { importLedgerCsv } from '../../src/store/import/csv-import.ts';
import { DINE_IN } from '../fixtures/worked-example.ts';
import type { TestApp } from './test-app.ts';

/** The Host every request names: the report's Url, and so its tag, depends on it. */
export const HOST = 'etag.test';
export const RANGE = 'CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-03-31';
export const REPORT = `/v1/Reporting/ProfitAndLoss/Flat?${RANGE}`;
const WEAK_TAG = /^W\/"[A-Za-z0-9_-]{27}"$/;

/** One balanced entry on 2024-01-07 (Sales against Cash at Downtown), new to the worked example. */
export const MORE_SALES =
  'entry,date,location,account,amount\nE1,2024-01-07,10,4000,-500.00\nE1,2024-01-07,10,1000,500.00\n';

export function get(app: Express, url: string, headers: Record<string, string> = {}) {
  return request(app).get(url).set('Host', HOST).set(headers);
}

export const sums = (t: TestApp): number => t.store.indexStats().sums;

/** The tag of a 200 answer, checked to be weak and sent with its caching headers. */
export async function tagOf(app: Express, url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await get(app, url, headers);
  expect(res.status, `${url}: ${res.text}`).to.equal(200);
  expect(res.headers.etag, url).to.match(WEAK_TAG);
  expect(res.headers['cache-control'], url).to.equal('private, no-cache');
  expect(res.headers.vary, url).to.equal('Accept');
  return res.headers.etag as string;
}

/** A 304 to `headers`, with no body and no report built. */
async function expectNotModified(t: TestApp, url: string, headers: Record<string, string>, tag: string) {
  const before = sums(t);
  const res = await get(t.app, url, headers);
  expect(res.status, `${url} ${JSON.stringify(headers)}: ${res.text}`).to.equal(304);
  expect(res.text ?? '').to.equal('');
  expect(res.headers['content-type']).to.equal(undefined);
  expect(res.headers.etag).to.equal(tag);
  expect(res.headers['cache-control']).to.equal('private, no-cache');
  expect(res.headers.vary).to.equal('Accept');
  expect(sums(t), 'no report was built').to.equal(before);
}

/** The January Sales figure of the report (its first row's first value). */
async function januarySales(app: Express, headers: Record<string, string> = {}): Promise<number> {
  const res = await get(app, REPORT, headers);
  expect(res.status, res.text).to.equal(200);
  return (res.body as { ReportModel: { Rows: { Values: number[] }[] } }).ReportModel.Rows[0]!.Values[0]!;
}

/** `open` gives a fresh app over a store holding the worked example; the suite closes it. */
export function conditionalGetSuite(open: () => Promise<TestApp>): void {
  let t: TestApp;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(async () => t?.close());

  it('every report operation: a weak ETag; If-None-Match with it is 304 with no body and no report built', async () => {
    const link = new URL((await get(t.app, REPORT)).body.Url as string).pathname;
    const cases: [operationId: string, url: string][] = [
      ['GetFlat', REPORT],
      ['GetFlatReplyGet', `/json/reply/GetFlatRequest?${RANGE}`],
      ['GetFlatReport', `${link}.json`],
      ['GetFlatReport', `${link}.csv`],
      ['GetFlatReport', `${link}.xlsx`],
      ['GetFlatReport', `${link}.html`],
    ];
    for (const [operationId, url] of cases) {
      expect(responseFor(contractOperations().byId(operationId), 304), `${operationId} documents 304`).to.exist;
      const tag = await tagOf(t.app, url);
      expect(await tagOf(t.app, url), 'the same answer, the same tag').to.equal(tag);
      await expectNotModified(t, url, { 'If-None-Match': tag }, tag);
      const head = await request(t.app).head(url).set('Host', HOST).set('If-None-Match', tag);
      expect(head.status, `HEAD ${url}`).to.equal(304);
    }
  });

  it('If-None-Match: `*`, a list with the tag, the tag strong, as fetch() sends it: 304; another: 200', async () => {
    const tag = await tagOf(t.app, REPORT);
    const opaque = tag.slice(2);
    for (const held of ['*', `W/"other", ${tag}`, `${tag},W/"other"`, opaque, `"x", ${opaque}`])
      await expectNotModified(t, REPORT, { 'If-None-Match': held }, tag);
    for (const other of ['W/"other"', `W/${opaque.slice(0, -2)}x"`, 'junk', ''])
      expect((await get(t.app, REPORT, { 'If-None-Match': other })).status, other).to.equal(200);
    // fetch() adds `Cache-Control: no-cache` and `Pragma: no-cache` to a request carrying If-None-Match.
    await expectNotModified(t, REPORT, { 'If-None-Match': tag, 'Cache-Control': 'no-cache', Pragma: 'no-cache' }, tag);
  });

  it('each format, callback and jsconfig has its own tag; each is 304 to its own only', async () => {
    const variants: [string, Record<string, string>][] = [
      [REPORT, {}],
      [REPORT.replace('?', '.xml?'), {}],
      [`${REPORT}&format=jsv`, {}],
      [`${REPORT}&format=csv`, {}],
      [`${REPORT}&format=html`, {}],
      [REPORT, { Accept: 'application/xml' }],
      [`${REPORT}&callback=cb`, {}],
      [`${REPORT}&callback=other`, {}],
      [`${REPORT}&jsconfig=EmitCamelCaseNames:true`, {}],
      [`${REPORT}&jsconfig=DateHandler:ISO8601`, {}],
    ];
    const tags: string[] = [];
    for (const [url, headers] of variants) tags.push(await tagOf(t.app, url, headers));
    // Accept: application/xml is the XML answer of `.xml`: the same form, the same tag.
    expect(tags[5]).to.equal(tags[1]);
    expect(new Set(tags).size).to.equal(variants.length - 1);
    for (const [i, [url, headers]] of variants.entries()) {
      await expectNotModified(t, url, { ...headers, 'If-None-Match': tags[i]! }, tags[i]!);
      const other = tags.find((tag) => tag !== tags[i])!;
      expect((await get(t.app, url, { ...headers, 'If-None-Match': other })).status, url).to.equal(200);
    }
  });

  it('the same report asked differently has the same tag; other parameters have others', async () => {
    const tag = await tagOf(t.app, REPORT);
    const same =
      '/v1/reporting/profitandloss/flat?companyid=1&usecustomdaterange=TRUE&startdate=2024-01-01&' +
      'EndDate=2024-3-31&Unknown=x';
    expect(await tagOf(t.app, same)).to.equal(tag);
    const others = [
      `${REPORT}&IncludeComputedColumns=true`,
      `${REPORT}&UseAccountMapping=true`,
      `${REPORT}&Locations=10`,
      `${REPORT}&Filters=${DINE_IN}`,
      `${REPORT}&OrderBy=AmountDescending`,
      REPORT.replace('2024-03-31', '2024-02-29'),
      '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1',
    ];
    const tags = new Set([tag]);
    for (const url of others) tags.add(await tagOf(t.app, url));
    expect(tags.size).to.equal(others.length + 1);
  });

  it('an import makes a new tag: the old one gets 200 with the new figures', async () => {
    const tag = await tagOf(t.app, REPORT);
    const link = `${new URL((await get(t.app, REPORT)).body.Url as string).pathname}.csv`;
    const linkTag = await tagOf(t.app, link);
    const before = await januarySales(t.app);
    await importLedgerCsv(t.store, MORE_SALES, { companyId: 1 });
    const res = await get(t.app, REPORT, { 'If-None-Match': tag });
    expect(res.status).to.equal(200);
    expect(res.headers.etag).to.match(WEAK_TAG).and.not.equal(tag);
    expect(await januarySales(t.app)).to.equal(before + 500);
    await expectNotModified(t, REPORT, { 'If-None-Match': res.headers.etag as string }, res.headers.etag as string);
    expect((await get(t.app, link, { 'If-None-Match': linkTag })).status, 'the report link').to.equal(200);
  });

  it("a load of another company leaves this company's tag: still 304", async () => {
    const tag = await tagOf(t.app, REPORT);
    await t.store.load({
      companies: [{ id: 2, name: 'Other Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' }],
      locations: [{ id: 30, companyId: 2, name: 'Elsewhere' }],
    });
    await expectNotModified(t, REPORT, { 'If-None-Match': tag }, tag);
  });

  it('a caller who may not read the company gets 401 or 403 with a valid tag, never 304', async () => {
    const tag = await tagOf(t.app, REPORT);
    const link = new URL((await get(t.app, REPORT)).body.Url as string).pathname;
    const linkTag = await tagOf(t.app, link);
    const before = sums(t);
    const other = await t.keyFor(2);
    for (const [url, held] of [
      [REPORT, tag],
      [REPORT, '*'],
      [link, linkTag],
    ] as const) {
      const asked = (headers: Record<string, string>) => get(t.rawApp, url, { 'If-None-Match': held, ...headers });
      const anonymous = await asked({});
      expect(anonymous.status, `${url} without a key`).to.equal(401);
      expect(anonymous.headers.etag).to.equal(undefined);
      expect((await asked({ 'X-ApiKey': 'rsk_unknown' })).status, `${url} with an unknown key`).to.equal(401);
      const forbidden = await asked({ 'X-ApiKey': other });
      expect(forbidden.status, `${url} with another company's key`).to.equal(403);
      expect(forbidden.headers.etag).to.equal(undefined);
    }
    expect(sums(t)).to.equal(before);
  });

  it('no 304 for what is not a report: an unknown company, a refused option, a POST', async () => {
    const tag = await tagOf(t.app, REPORT);
    const unknown = await get(t.rawApp, REPORT.replace('CompanyId=1', 'CompanyId=99'), {
      'If-None-Match': '*',
      'X-ApiKey': await t.keyFor(99),
    });
    expect(unknown.status, unknown.text).to.be.within(400, 404);
    expect(unknown.headers.etag).to.equal(undefined);
    const refused = await get(t.app, `${REPORT}&Locations=999`, { 'If-None-Match': '*' });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.headers.etag).to.equal(undefined);
    const posted = await request(t.app)
      .post('/json/reply/GetFlatRequest')
      .set('Host', HOST)
      .set('If-None-Match', tag)
      .send({ CompanyId: 1, UseCustomDateRange: true, StartDate: '2024-01-01', EndDate: '2024-03-31' });
    expect(posted.status, posted.text).to.equal(200);
    expect(posted.headers.etag).to.equal(undefined);
  });
}
