/**
 * In a real browser (Debian's chromium, driven by playwright-core): the report page a GetFlatResponse's Url opens
 * shows the worked example's figures (§5 request A) and a chart drawn by chart.js served by the service itself;
 * the /docs page renders the contract with every operation's path and links to the WSDL. No network besides the
 * app on loopback. Screenshots go to test-output/ (report-page.png, docs-page.png).
 *
 * Chromium missing fails the suite with a clear message, unless SKIP_BROWSER=1.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { GetFlatResponse } from '../../../src/contract/dtos.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { CHROMIUM, launchChromium } from '../../support/chromium.ts';

const OUTPUT = path.resolve('test-output');
const skipBrowser = process.env.SKIP_BROWSER === '1';

/** Console errors, uncaught exceptions and failed requests (CSP violations show up as console errors). */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  return problems;
}

describe('in a real browser (headless chromium)', function () {
  this.timeout(90_000);
  if (skipBrowser) {
    it('is skipped because SKIP_BROWSER=1');
    return;
  }
  let t: ListeningTestApp;
  let browser: Browser;
  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium), set ` +
          `CHROMIUM_PATH, or SKIP_BROWSER=1 to skip the browser tests.`,
      );
    }
    mkdirSync(OUTPUT, { recursive: true });
    t = await listenTestApp();
    browser = await launchChromium(['--disable-quic']);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'the Url of §5 request A opens the report page: Net Income 600.00 / 485.00 / 1,085.00 and a drawn chart ' +
      '(screenshot report-page.png)',
    async () => {
      const query = new URLSearchParams({
        CompanyId: '1',
        UseCustomDateRange: 'true',
        StartDate: '2024-01-01',
        EndDate: '2024-02-29',
        IncludeComputedColumns: 'true',
      });
      const res = await fetch(`${t.url}/v1/Reporting/ProfitAndLoss/Flat?${query}`, {
        headers: { Accept: 'application/json', 'X-ApiKey': t.apiKey },
      });
      expect(res.status).to.equal(200);
      const { Url } = (await res.json()) as GetFlatResponse;

      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const problems = watch(page);
      const response = await page.goto(Url, { waitUntil: 'load' });
      expect(response!.status()).to.equal(200);
      expect(response!.headers()['content-type']).to.equal('text/html; charset=utf-8');

      const cells = await page.locator('tr.net-income td').allTextContents();
      expect(cells).to.deep.equal(['600.00', '485.00', '1,085.00']);
      expect(await page.locator('tr.computed').count()).to.equal(4);
      expect(await page.locator('tr.section-total').count()).to.equal(5);
      expect(await page.locator('td.neg').allTextContents()).to.deep.equal(['(15.00)', '(15.00)']);
      expect(await page.locator('h1').textContent()).to.equal('Profit and Loss');

      const chart = await page.evaluate(() => {
        const canvas = document.getElementById('pnl-chart') as HTMLCanvasElement;
        const instance = (
          window as unknown as {
            Chart?: {
              getChart(c: HTMLCanvasElement): { data: { datasets: { label: string; data: number[] }[] } } | undefined;
            };
          }
        ).Chart?.getChart(canvas);
        const { width, height } = canvas;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, width, height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
        return {
          width,
          height,
          painted,
          datasets: instance?.data.datasets.map((d) => [d.label, d.data]) ?? null,
        };
      });
      expect(chart.datasets).to.deep.equal([
        ['Income', [1450, 1510]],
        ['Expenses', [850, 1025]],
        ['Net Income', [600, 485]],
      ]);
      expect(chart.width).to.be.greaterThan(300);
      expect(chart.painted, 'non-blank canvas pixels').to.be.greaterThan(5000);

      const links = await page
        .locator('nav.formats a')
        .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
      expect(links.map((l) => l.split('.').pop())).to.deep.equal(['csv', 'xlsx', 'json']);
      const csv = await fetch(links[0]!, { headers: { 'X-ApiKey': t.apiKey } });
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-disposition')).to.match(
        /^attachment; filename=profit-and-loss_worked-example-co_2024-01-01_2024-02-29\.csv$/,
      );

      await page.screenshot({ path: path.join(OUTPUT, 'report-page.png'), fullPage: true });
      expect(problems).to.deep.equal([]);
      await page.close();
    },
  );

  it(
    '/docs renders the contract with Swagger UI from the service itself: every operation path, a WSDL link ' +
      '(screenshot docs-page.png)',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const problems = watch(page);
      const response = await page.goto(`${t.url}/docs`, { waitUntil: 'load' });
      expect(response!.status()).to.equal(200);
      await page.locator('.opblock-summary-path').first().waitFor({ timeout: 30_000 });
      const paths = await page
        .locator('.opblock-summary-path')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent ?? ''));
      const operations = await page.locator('.opblock').count();
      expect(new Set(paths)).to.deep.equal(
        new Set([
          '/v1/echo/{Message}',
          '/json/reply/EchoRequest',
          '/v1/Reporting/ProfitAndLoss/Flat',
          '/json/reply/GetFlatRequest',
          '/v1/Reporting/ProfitAndLoss/Flat/Reports/{Token}',
          '/json/reply/EchoRequest[]',
          '/json/reply/GetFlatRequest[]',
        ]),
      );
      // Echo, EchoReply GET/POST, GetFlat, GetFlatReply GET/POST, GetFlatReport, the two batches.
      expect(operations).to.equal(9);
      expect(await page.locator('#wsdl-link').getAttribute('href')).to.equal('/soap12?wsdl');
      const wsdl = await page.evaluate(async () => {
        const r = await fetch('/soap12?wsdl');
        return { status: r.status, text: (await r.text()).slice(0, 400) };
      });
      expect(wsdl.status).to.equal(200);
      expect(wsdl.text).to.match(/definitions/);
      await page.locator('.opblock').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(OUTPUT, 'docs-page.png'), fullPage: true });
      expect(problems).to.deep.equal([]);
      await page.close();
    },
  );
});
