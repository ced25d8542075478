/**
 * The report resource (issue 5): GET on a GetFlatResponse's Url serves the same report in JSON, HTML, CSV and
 * XLSX, chosen like the rest of the API (suffix, ?format=, Accept); the link works on another instance over the
 * same store; tampered or malformed links get a ResponseStatus (404 / 400), never a report.
 */
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import request from 'supertest';
import type { Express } from 'express';
import { pino } from 'pino';
import { createApp } from '../../../src/app.ts';
import type { GetFlatResponse } from '../../../src/contract/dtos.ts';
import type { FlatReport } from '../../../src/reports/flat-pnl.ts';
import { renderCsv } from '../../../src/reports/render-csv.ts';
import { decodeReportToken, encodeReportToken, type ReportLinkPayload } from '../../../src/reports/report-link.ts';
import { linkSecretSource } from '../../../src/services/link-secret.ts';
import type { LedgerBatch } from '../../../src/domain/ledger.ts';
import { AIRPORT, DINE_IN, workedExampleBatch } from '../../fixtures/worked-example.ts';
import { createTestApp, NO_KEY_HEADER, type TestApp } from '../../support/test-app.ts';
import { EXPECTED_A } from '../../fixtures/worked-example.ts';

const A = {
  CompanyId: '1',
  UseCustomDateRange: 'true',
  StartDate: '2024-01-01',
  EndDate: '2024-02-29',
  IncludeComputedColumns: 'true',
};
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FILE = 'profit-and-loss_worked-example-co_2024-01-01_2024-02-29';
/** The header row of the worked example's CSV and XLSX downloads. */
const COLUMNS = ['RowType', 'Section', 'Level', 'AccountNumber', 'Name', 'FullName', 'Jan 2024', 'Feb 2024', 'Total'];

/**
 * The DTO minus what may differ between two builds: BuildTime, and the Url's port (supertest listens anew per request).
 */
const withoutBuildTime = (body: GetFlatResponse) => ({
  ...body,
  Url: new URL(body.Url).pathname,
  ReportModel: { ...body.ReportModel, BuildTime: 0 },
});
const pathOf = (url: string) => new URL(url).pathname;
const tokenOf = (url: string) => pathOf(url).split('/').pop()!;

function binary(res: request.Response, callback: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

async function flat(app: Express, query: Record<string, string>): Promise<GetFlatResponse> {
  const res = await request(app).get('/v1/Reporting/ProfitAndLoss/Flat').query(query);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as GetFlatResponse;
}

function expectNoReport(res: request.Response, status: number, code: string): void {
  expect(res.status).to.equal(status);
  expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(res.body.ResponseStatus.ErrorCode).to.equal(code);
  expect(res.body).to.not.have.property('ReportModel');
}

describe('report links: GET on GetFlatResponse.Url (issue 5)', function () {
  this.timeout(30_000);
  let t: TestApp;
  let original: GetFlatResponse;
  let path: string;
  before(async () => {
    t = await createTestApp();
    original = await flat(t.app, A);
    path = pathOf(original.Url);
  });
  after(() => t?.close());

  it(
    'Url is <base>/v1/Reporting/ProfitAndLoss/Flat/Reports/<payload>.<HMAC-SHA256>, and carries no per-process ' +
      'state',
    () => {
      expect(original.Url).to.match(
        /^http:\/\/127\.0\.0\.1:\d+\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/,
      );
      const [payload] = tokenOf(original.Url).split('.');
      expect(JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'))).to.deep.equal({
        v: 1,
        c: 1,
        f: '2024-01-01',
        t: '2024-02-29',
        m: 0,
        x: 1,
        o: '',
        l: [],
        g: [],
      });
    },
  );

  describe('JSON', () => {
    it(
      'is the same GetFlatResponse (options, figures and Url) for Accept: application/json, .json, ?format=json ' +
        'and no Accept',
      async () => {
        const variants = [
          request(t.app).get(path).set('Accept', 'application/json'),
          request(t.app).get(`${path}.json`).set('Accept', BROWSER_ACCEPT),
          request(t.app).get(path).query({ format: 'json' }).set('Accept', BROWSER_ACCEPT),
          request(t.app).get(path),
        ];
        for (const res of await Promise.all(variants)) {
          expect(res.status).to.equal(200);
          expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
          expect(res.headers['content-disposition']).to.equal(undefined);
          expect(withoutBuildTime(res.body)).to.deep.equal(withoutBuildTime(original));
          expect(
            res.body.ReportModel.Rows.map((r: { RowName: string; Values: number[] }) => [r.RowName, r.Values]),
          ).to.deep.equal(EXPECTED_A);
        }
      },
    );

    it('route literals are case-insensitive and JSONP works as on every DTO route', async () => {
      const res = await request(t.app)
        .get(path.toLowerCase().replace(tokenOf(original.Url).toLowerCase(), tokenOf(original.Url)))
        .query({ callback: 'show' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/javascript/);
      expect(res.text).to.match(/^show\(\{"Url":/);
    });

    it(
      'When ?format= names a format the operation does not document (xml), then it is never answered: negotiation ' +
        'falls through to Accept, as without it',
      async () => {
        const res = await request(t.app).get(path).query({ format: 'xml' });
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(withoutBuildTime(res.body)).to.deep.equal(withoutBuildTime(original));
        const browser = await request(t.app).get(path).query({ format: 'xml' }).set('Accept', BROWSER_ACCEPT);
        expect(browser.status).to.equal(200);
        expect(browser.headers['content-type']).to.equal('text/html; charset=utf-8');
      },
    );

    it(
      'When the link ends in the suffix of a format it has no form for (.xml, .jsv), then a 404 ResponseStatus ' +
        'says so and names the suffixes it has (issue 27)',
      async () => {
        const message = (suffix: string) =>
          `This resource has no '.${suffix}' form: end its path with .json, .html, .csv or .xlsx instead (or use ` +
          `?format= or Accept).`;
        for (const suffix of ['xml', 'jsv']) {
          const res = await request(t.app).get(`${path}.${suffix}`);
          expectNoReport(res, 404, 'NotFound');
          expect(res.body.ResponseStatus.Message).to.equal(message(suffix));
          // A browser gets the error as the HTML page every error is for it, with the same ResponseStatus.
          const page = await request(t.app).get(`${path}.${suffix}`).set('Accept', BROWSER_ACCEPT);
          expect(page.status).to.equal(404);
          expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
          expect(page.text).to.include(message(suffix).replace(/'/g, '&#39;'));
        }
        // Said before the link is read: the same to a caller without a key, and for an altered link.
        expectNoReport(await request(t.app).get(`${path}.xml`).set(NO_KEY_HEADER, '1'), 404, 'NotFound');
        const altered = `${path.slice(0, -2)}${path.at(-2) === 'A' ? 'B' : 'A'}${path.at(-1)}`;
        const error = await request(t.app).get(`${altered}.xml`).set('Accept', 'application/xml');
        expectNoReport(error, 404, 'NotFound');
        expect(error.body.ResponseStatus.Message).to.match(/^This resource has no '\.xml' form/);
        // An operation that documents no 404 keeps the suffix in its path, as 4.5 kept one it did not know.
        const echo = await request(t.app).get('/v1/echo/report.xlsx');
        expect(echo.status).to.equal(200);
        expect(echo.body.Message).to.equal('report.xlsx');
      },
    );

    it('keeps every option: locations, filters, mapping, order (C, D, E, F of §5 in one link)', async () => {
      const query = {
        ...A,
        Locations: `[${AIRPORT}]`,
        Filters: DINE_IN.toUpperCase(),
        UseAccountMapping: 'true',
        OrderBy: 'amountdescending',
      };
      const built = await flat(t.app, query);
      const res = await request(t.app).get(pathOf(built.Url)).set('Accept', 'application/json');
      expect(res.status).to.equal(200);
      expect(withoutBuildTime(res.body)).to.deep.equal(withoutBuildTime(built));
      expect(res.body.SelectedOptions).to.include({ UseAccountMapping: true, OrderBy: 'AmountDescending' });
      expect(res.body.SelectedOptions.Locations).to.deep.equal([AIRPORT]);
      expect(res.body.SelectedOptions.Filters).to.deep.equal([DINE_IN]);
    });

    it(
      'a relative range is resolved once: the link keeps its dates and echoes the same SelectedOptions, whatever ' +
        'today is later',
      async () => {
        const built = await flat(t.app, { CompanyId: '1', IncludeComputedColumns: 'true' }); // today = 2024-03-15
        expect(built.SelectedOptions.RelativeDateRange).to.equal('ThisCalendarYearToDate');
        const later = await createTestApp({ store: t.store, now: () => new Date('2025-07-01T12:00:00Z') });
        const res = await request(later.app).get(pathOf(built.Url)).set('Accept', 'application/json');
        expect(res.status).to.equal(200);
        expect(withoutBuildTime(res.body)).to.deep.equal(withoutBuildTime(built));
        expect(res.body.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024', 'Mar 2024', 'Total']);
      },
    );
  });

  describe('HTML', () => {
    it('is the default for browsers (Accept: text/html), and also .html and ?format=html', async () => {
      for (const req of [
        request(t.app).get(path).set('Accept', BROWSER_ACCEPT),
        request(t.app).get(`${path}.html`),
        request(t.app).get(path).query({ format: 'html' }).set('Accept', 'application/json'),
      ]) {
        const res = await req;
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal(undefined);
        expect(res.headers['content-security-policy']).to.match(/script-src 'self'/);
        expect(res.headers.vary).to.match(/Accept/);
        expect(res.text).to.match(/^<!DOCTYPE html>/);
      }
    });

    it(
      'shows the statement of request A: sections, totals, computed rows, negatives in parentheses, links to the ' +
        'other formats',
      async () => {
        const res = await request(t.app).get(`${path}.html`);
        const rowOf = (name: string) =>
          new RegExp(`<tr class="[^"]*"[^>]*><th scope="row">${name}</th>(.*?)</tr>`).exec(res.text)?.[1] ?? '';
        const cells = (name: string) => [...rowOf(name).matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
        expect(cells('Net Income')).to.deep.equal(['600.00', '485.00', '1,085.00']);
        expect(cells('Total Income')).to.deep.equal(['1,450.00', '1,500.00', '2,950.00']);
        expect(cells('Net Other Income')).to.deep.equal(['0.00', '(15.00)', '(15.00)']);
        expect(rowOf('Net Other Income')).to.contain('<td class="neg">(15.00)</td>');
        expect(res.text).to.contain(
          '<tr class="computed net-income" data-row-type="Computed"><th scope="row">Net Income</th>',
        );
        expect(res.text).to.contain(
          '<tr class="section-total" data-row-type="SectionTotal"><th scope="row">Total Expenses</th>',
        );
        for (const section of ['Income', 'COGS', 'Expenses', 'Other Income', 'Other Expenses']) {
          expect(res.text).to.contain(`<th colspan="4" scope="rowgroup">${section}</th>`);
        }
        for (const ext of ['csv', 'xlsx', 'json']) expect(res.text).to.contain(`href="${path}.${ext}"`);
        expect(res.text).to.contain('<script src="/assets/chart.umd.min.js"></script>');
        const data = JSON.parse(/<script type="application\/json" id="chart-data">(.*?)<\/script>/.exec(res.text)![1]!);
        expect(data).to.deep.equal({
          labels: ['Jan 2024', 'Feb 2024'],
          income: [1450, 1510],
          expenses: [850, 1025],
          netIncome: [600, 485],
        });
      },
    );

    it('serves its assets itself: chart.js, the page script and style', async () => {
      for (const [asset, type] of [
        ['/assets/chart.umd.min.js', /javascript/],
        ['/assets/report-page.js', /javascript/],
        ['/assets/report-page.css', /text\/css/],
      ] as const) {
        const res = await request(t.app).get(asset);
        expect(res.status, asset).to.equal(200);
        expect(res.headers['content-type']).to.match(type);
      }
    });
  });

  describe('CSV', () => {
    it(
      'is the wide form of §3 with the figures of request A, as an attachment (.csv, ?format=csv, Accept: ' +
        'text/csv)',
      async () => {
        for (const req of [
          request(t.app).get(`${path}.csv`),
          request(t.app).get(path).query({ format: 'csv' }),
          request(t.app).get(path).set('Accept', 'text/csv'),
        ]) {
          const res = await req;
          expect(res.status).to.equal(200);
          expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
          expect(res.headers['content-disposition']).to.equal(`attachment; filename=${FILE}.csv`);
          expect(res.text).to.contain('\r\n');
          const [header, ...rows] = parse(res.text) as string[][];
          expect(header).to.deep.equal(COLUMNS);
          expect(rows.map((r) => [r[4], r.slice(6).map(Number)])).to.deep.equal(EXPECTED_A);
          expect(rows.map((r) => r.slice(6))).to.deep.include(['0.00', '-15.00', '-15.00']);
          expect(rows[0]).to.deep.equal([
            'Account',
            'Income',
            '0',
            '4000',
            '4000 Sales',
            'Income:Sales',
            '1450.00',
            '1200.00',
            '2650.00',
          ]);
          expect(rows.at(-1)!.slice(0, 6)).to.deep.equal(['Computed', '', '0', '', 'Net Income', 'Net Income']);
        }
      },
    );
  });

  describe('XLSX', () => {
    it(
      'is one sheet: numbers with a money format, bold totals and computed rows, frozen header; ' + 'attachment',
      async () => {
        for (const req of [
          request(t.app).get(`${path}.xlsx`),
          request(t.app).get(path).query({ format: 'xlsx' }),
          request(t.app).get(path).set('Accept', XLSX),
        ]) {
          const res = await req.buffer(true).parse(binary);
          expect(res.status).to.equal(200);
          expect(res.headers['content-type']).to.equal(XLSX);
          expect(res.headers['content-disposition']).to.equal(`attachment; filename=${FILE}.xlsx`);
          const workbook = new ExcelJS.Workbook();
          await workbook.xlsx.load(res.body as unknown as ArrayBuffer);
          expect(workbook.worksheets.length).to.equal(1);
          const sheet = workbook.worksheets[0]!;
          expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
          expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(COLUMNS);
          expect(sheet.getRow(1).font?.bold).to.equal(true);
          const rows: [string, number[]][] = [];
          for (let r = 2; r <= sheet.rowCount; r++) {
            const row = sheet.getRow(r);
            const values = [7, 8, 9].map((c) => row.getCell(c).value);
            for (const v of values) expect(v).to.be.a('number');
            for (const c of [7, 8, 9]) expect(row.getCell(c).numFmt).to.equal('#,##0.00;(#,##0.00);0.00');
            const isTotal = ['SectionTotal', 'Computed'].includes(String(row.getCell(1).value));
            expect(!!row.getCell(5).font?.bold, `row ${r} bold`).to.equal(isTotal);
            rows.push([String(row.getCell(5).value), values as number[]]);
          }
          expect(rows).to.deep.equal(EXPECTED_A);
        }
      },
    );
  });

  describe('tampered and malformed links', () => {
    const secret = () => t.store.linkSecret();
    const payloadOf = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as ReportLinkPayload;

    it('another company in the payload with the old signature → 404 NotFound, no report', async () => {
      const token = tokenOf(original.Url);
      const payload = Buffer.from(JSON.stringify({ ...payloadOf(token), c: 2 })).toString('base64url');
      const forged = `${payload}.${token.split('.')[1]}`;
      expectNoReport(
        await request(t.app)
          .get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${forged}`)
          .set('Accept', 'application/json'),
        404,
        'NotFound',
      );
      // A browser gets the ResponseStatus in the format its Accept prefers: ServiceStack's HTML snapshot (never the
      // report page).
      const browser = await request(t.app)
        .get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${forged}`)
        .set('Accept', BROWSER_ACCEPT);
      expect(browser.status).to.equal(404);
      expect(browser.text).to.contain('NotFound').and.not.contain('Net Income');
      const csv = await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${forged}.csv`);
      expect(csv.status).to.equal(404);
      expect(csv.text)
        .to.match(/^ResponseStatus\r\n"\{ErrorCode:NotFound,/)
        .and.not.contain('Net Income');
    });

    it('a changed signature, or one made with another secret → 404', async () => {
      const token = tokenOf(original.Url);
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      const flipped = `${token.slice(0, -2)}${last}${token.at(-1)}`;
      expectNoReport(await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${flipped}`), 404, 'NotFound');
      const foreign = encodeReportToken(payloadOf(token), 'another deployment');
      expectNoReport(
        await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${foreign}.xlsx`),
        404,
        'NotFound',
      );
      expect(decodeReportToken(token, await secret())).to.deep.equal(payloadOf(token));
    });

    it('garbage (no signature, bad characters, too long) → 400 naming Token', async () => {
      for (const garbage of [
        'garbage',
        'a.b',
        `${'A'.repeat(5000)}.${'B'.repeat(43)}`,
        `${tokenOf(original.Url)}x`,
        '%3Cscript%3E.x',
      ]) {
        const res = await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${garbage}`);
        expectNoReport(res, 400, 'ArgumentException');
        expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal(['Token']);
      }
    });

    it('the link needs a key whose scope includes the company: none → 401, another company → 403', async () => {
      const none = await request(t.rawApp).get(path).set('Accept', 'application/json');
      expectNoReport(none, 401, 'Unauthorized');
      const other = await request(t.rawApp)
        .get(`${path}.csv`)
        .set('X-ApiKey', await t.keyFor(2));
      expect(other.status).to.equal(403);
      expect(other.text).to.match(/^ResponseStatus\r\n"\{ErrorCode:Forbidden,/);
      const own = await request(t.rawApp)
        .get(`${path}.csv`)
        .set('X-ApiKey', await t.keyFor(1));
      expect(own.status).to.equal(200);
    });

    it(
      'a genuine link whose options no longer fit the catalog is a 400 like GetFlat, and a signed unknown company ' +
        'a 404',
      async () => {
        const payload = payloadOf(tokenOf(original.Url));
        const s = await secret();
        const badLocation = encodeReportToken({ ...payload, l: [99] }, s);
        expectNoReport(
          await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${badLocation}`),
          400,
          'ArgumentException',
        );
        const noCompany = encodeReportToken({ ...payload, c: 77 }, s);
        const res = await request(t.rawApp)
          .get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${noCompany}`)
          .set('X-ApiKey', await t.keyFor(77));
        expect(res.status).to.be.oneOf([403, 404]);
        expect(res.body).to.not.have.property('ReportModel');
      },
    );
  });

  describe('any instance', () => {
    it(
      'another app over the same store serves the link with the same figures (the secret lives in the ' + 'store)',
      async () => {
        const other = await createApp({
          config: { companyName: 'x', debug: false, bodyLimitBytes: 65_536, validateResponses: true },
          store: t.store,
          logger: pino({ level: 'silent' }),
        });
        const res = await request(other).get(path).set('Accept', 'application/json').set('X-ApiKey', t.apiKey);
        expect(res.status).to.equal(200);
        expect(withoutBuildTime(res.body)).to.deep.equal(withoutBuildTime(original));
      },
    );

    it('REPORT_LINK_SECRET, when configured, wins over the store secret', async () => {
      const source = linkSecretSource({ linkSecret: () => Promise.reject(new Error('not called')) }, 'configured');
      expect(await source()).to.equal('configured');
      let calls = 0;
      const fromStore = linkSecretSource({
        linkSecret: async () => (++calls === 1 ? Promise.reject(new Error('down')) : 'stored'),
      });
      await fromStore().then(
        () => expect.fail('should fail'),
        () => undefined,
      );
      expect(await fromStore()).to.equal('stored');
      expect(await fromStore()).to.equal('stored');
      expect(calls).to.equal(2);
    });
  });

  describe('escaping', () => {
    it('CSV text cells that a spreadsheet would evaluate get a leading apostrophe; amounts never do', () => {
      const report: FlatReport = {
        periods: [],
        columnNames: ['Jan 2024'],
        rows: [
          {
            rowType: 'Account',
            section: 'Income',
            level: 0,
            accountNumber: '@1',
            rowName: '=1+1',
            fullName: 'Income:+x',
            isTotal: false,
            cents: [-1505],
          },
        ],
      };
      const [, row] = parse(renderCsv(report)) as string[][];
      expect(row).to.deep.equal(['Account', 'Income', '0', "'@1", "'=1+1", 'Income:+x', '-15.05']);
    });

    it('account and company names cannot inject markup into the page, nor formulas into the CSV', async () => {
      const hostile = '<img src=x onerror="alert(1)"> & \'q\'';
      const batch: LedgerBatch = {
        ...workedExampleBatch,
        companies: workedExampleBatch.companies!.map((c) => ({ ...c, name: `</title><script>alert(2)</script>` })),
        accounts: workedExampleBatch.accounts!.map((a) =>
          a.id === 4100 ? { ...a, name: hostile } : a.id === 6100 ? { ...a, name: '=HYPERLINK("http://x")' } : a,
        ),
      };
      const h = await createTestApp({ batch });
      try {
        const built = await flat(h.app, A);
        const page = await request(h.app).get(`${pathOf(built.Url)}.html`);
        expect(page.text).to.not.contain('<img src=x');
        expect(page.text).to.not.contain('<script>alert(2)');
        expect(page.text).to.contain('4100 &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;q&#39;');
        expect(page.text).to.contain('&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
        const csv = await request(h.app).get(`${pathOf(built.Url)}.csv`);
        const rows = parse(csv.text) as string[][];
        expect(rows.find((r) => r[3] === '4100')![4]).to.equal(`4100 ${hostile}`);
        expect(rows.find((r) => r[3] === '6100')!.slice(4, 6)).to.deep.equal([
          '6100 =HYPERLINK("http://x")',
          'Expenses:=HYPERLINK("http://x")',
        ]);
      } finally {
        await h.close();
      }
    });
  });
});
