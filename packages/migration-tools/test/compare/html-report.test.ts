/**
 * The HTML report in a real browser (Debian's chromium via playwright-core): two in-process instances listening on
 * loopback, one with another company name, compared over a few requests; the self-contained file opens from disk
 * with no other request, shows the verdict, the summary tables and the side-by-side diff of the differing body.
 * Screenshot: test-output/compare-report.png. Chromium missing fails with a clear message unless SKIP_BROWSER=1.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { renderHtmlReport } from '../../src/compare/html-report.ts';
import { DEFAULT_HEADERS } from '../../src/compare/rules.ts';
import { runComparison, type CompareReport } from '../../src/compare/run.ts';
import type { ReplayRequest } from '../../src/compare/types.ts';
import { listenTestApp, type ListeningTestApp } from '../../../../test/support/listening.ts';
import { CHROMIUM, launchChromium } from '../../../../test/support/chromium.ts';

const OUTPUT = path.resolve('test-output');

describe('compare: the HTML report in headless chromium', function () {
  this.timeout(90_000);
  if (process.env.SKIP_BROWSER === '1') {
    it('is skipped because SKIP_BROWSER=1');
    return;
  }
  let old: ListeningTestApp;
  let neu: ListeningTestApp;
  let browser: Browser;
  let report: CompareReport;
  let file: string;

  before(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium not found at ${CHROMIUM}: apt-get install chromium, set CHROMIUM_PATH, or SKIP_BROWSER=1.`,
      );
    [old, neu] = await Promise.all([
      listenTestApp({ companyName: 'Old <Company> & Co' }),
      listenTestApp({ companyName: 'New Company' }),
    ]);
    const request = (url: string, rule: string): ReplayRequest => ({
      method: 'GET',
      url,
      headers: {},
      origin: { source: 'battery', rule },
    });
    report = await runComparison(
      [
        request('/v1/echo/hello', 'echo-json'),
        request('/v1/echo/hello.xml', 'echo-xml'),
        request('/v1/echo/hello?callback=cb', 'echo-jsonp'),
        request('/no/such/route', 'not-found'),
      ],
      {
        old: { base: old.url, headers: {} },
        new: { base: neu.url, headers: {} },
        rules: { headers: DEFAULT_HEADERS, ignore: [], tolerances: [] },
        concurrency: 2,
        timeoutMs: 10_000,
        allowNonGet: false,
      },
      {
        sources: [{ spec: 'test', source: 'battery', requests: 4, issues: 0 }],
        issues: [{ file: 'access.log', line: 7, reason: 'bad request line' }],
      },
    );
    mkdirSync(OUTPUT, { recursive: true });
    file = path.join(OUTPUT, 'compare-report.html');
    writeFileSync(file, renderHtmlReport(report));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([old?.close(), neu?.close()]);
  });

  it('found the company name in the JSON, XML and JSONP answers and nothing else', () => {
    expect(report.summary.totals).to.include({ requests: 4, different: 3, identical: 1 });
    expect(report.exchanges.flatMap((e) => e.differences.map((d) => d.path))).to.deep.equal([
      '$.CompanyName',
      '$.CompanyName',
      '$.CompanyName',
    ]);
  });

  it('opens from disk with no other request and shows verdict, summaries and side-by-side diffs', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(pathToFileURL(file).href);
    expect(requests).to.deep.equal([pathToFileURL(file).href]);
    expect(problems).to.deep.equal([]);
    expect(await page.textContent('#verdict')).to.match(/^3 of 4 requests differ/);
    const endpointRows = await page.$$eval('table.summary', (tables) => tables[0]!.querySelectorAll('tbody tr').length);
    expect(endpointRows).to.equal(2); // GET /v1/echo/{Message} (JSON, XML, JSONP) and GET /no/such/route
    const sections = await page.$$('section.exchange');
    expect(sections).to.have.length(3);
    // Side by side: two panes per differing body, the old name deleted on the left, the new one inserted on the right.
    expect(await page.$$eval('section.exchange .d2h-files-diff', (els) => els.length)).to.equal(3);
    const deleted = await page.$$eval('section.exchange .d2h-del', (els) =>
      els.map((e) => e.textContent ?? '').join(' '),
    );
    const inserted = await page.$$eval('section.exchange .d2h-ins', (els) =>
      els.map((e) => e.textContent ?? '').join(' '),
    );
    expect(deleted).to.include('Old <Company> & Co');
    expect(inserted).to.include('New Company');
    expect(await page.textContent('body')).to.include('access.log:7');
    // Escaped, not markup: the old company's name is text, no element was made of it.
    expect(await page.$$('Company')).to.have.length(0);
    await page.screenshot({ path: path.join(OUTPUT, 'compare-report.png'), fullPage: true });
    await page.close();
  });
});
