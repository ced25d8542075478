/**
 * `npm run compare` end to end, against real instances of this service started as a user starts them (`npm start`'s
 * `node dist/src/start.js`, each over its own DuckDB store with the demo ledger and the demo key it prints): A and A2
 * configured alike but for their report link secrets (each signs links with its own, as two stores do), B with
 * another COMPANY_NAME and a third secret. The tool finds exactly the company name on the whole battery and nothing
 * between A and A2: the link signature, BuildTime and X-Request-Id are this service's own volatile fields, built-in
 * noise (without it, they are the hundreds of differences of issue 27, summarised once each in a few lines, and an
 * HTML report of bounded size); JSV answers are compared as trees; a rule names a field in any case convention;
 * explicit rules allow differences; every verb but GET and HEAD is replayed only with --allow-non-get (a recording of
 * OPTIONS, PUT, DELETE and PATCH shows their differences), the reason printed; a hung host times out. The HTML report
 * is opened in Chromium (html-report.test.ts), the comparers on bodies the hosts write
 * (client-view.test.ts), the source parsers on fixtures (sources.test.ts).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CompareReport } from '../../src/compare/run.ts';
import { readCsvStrictly } from '../../src/compare/comparers/csv.ts';
import { LINE_BREAKS } from '../../src/compare/sources/format-battery.ts';
import type { FieldDiff } from '../../src/compare/types.ts';
import {
  ensureProductionBuild,
  startProductionServer,
  type ServerProcess,
} from '../../../../scripts/lib/server-process.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface ServiceProcess {
  url: string;
  /** The demo key the service printed on first start. */
  apiKey: string;
  server: ServerProcess;
}

/** `npm start` on a fresh data directory: the demo ledger is loaded and a demo key for company 1 printed once. */
async function startService(dataDir: string, env: Record<string, string>): Promise<ServiceProcess> {
  const server = await startProductionServer({ DATA_DIR: dataDir, DEMO_DATA: '1', LOG_LEVEL: 'warn', ...env });
  await server.waitForOutput(/Demo API key for company 1[^:]*: \S+\n/, 120_000);
  return { url: server.url, apiKey: /Demo API key for company 1[^:]*: (\S+)/.exec(server.output())![1]!, server };
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  report: CompareReport;
}

describe('npm run compare: two real instances of this service', function () {
  this.timeout(300_000);
  let a: ServiceProcess;
  let a2: ServiceProcess;
  let b: ServiceProcess;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-compare-'));
    await ensureProductionBuild();
    // A secret each: report Urls are signed, and the signature is built-in noise.
    [a, a2, b] = await Promise.all([
      startService(mkdtempSync(join(dir, 'a-')), { REPORT_LINK_SECRET: 'compare-test-secret-a' }),
      startService(mkdtempSync(join(dir, 'a2-')), { REPORT_LINK_SECRET: 'compare-test-secret-a2' }),
      startService(mkdtempSync(join(dir, 'b-')), {
        REPORT_LINK_SECRET: 'compare-test-secret-b',
        COMPANY_NAME: 'Another Company',
      }),
    ]);
  });
  after(async () => {
    await Promise.all([a, a2, b].filter(Boolean).map((s) => s.server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  let counter = 0;
  /** A host given as a URL is called without a key. */
  async function compare(
    old: ServiceProcess | string,
    neu: ServiceProcess | string,
    ...args: string[]
  ): Promise<CliResult> {
    const json = join(dir, `report-${++counter}.json`);
    const hostArgs = (side: string, host: ServiceProcess | string) =>
      typeof host === 'string'
        ? [`--${side}`, host]
        : [`--${side}`, host.url, `--${side}-header`, `X-ApiKey: ${host.apiKey}`];
    const argv = [
      'tsx',
      'packages/migration-tools/scripts/compare.ts',
      ...hostArgs('old', old),
      ...hostArgs('new', neu),
      '--json',
      json,
      ...args,
    ];
    const { code, stdout, stderr } = await run('npx', argv, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        stdout: e.stdout ?? '',
        stderr: e.stderr ?? '',
      }),
    );
    let report: CompareReport;
    try {
      report = JSON.parse(readFileSync(json, 'utf8')) as CompareReport;
    } catch {
      throw new Error(`no JSON report (exit ${code}):\n${stdout}\n${stderr}`);
    }
    return { code, stdout, stderr, report };
  }

  const differences = (report: CompareReport) =>
    report.exchanges
      .flatMap((e) =>
        e.differences.map(
          (d) =>
            `${e.request.origin.rule ?? e.request.url} ${d.path}: ${JSON.stringify(d.old)} → ${JSON.stringify(d.new)}`,
        ),
      )
      .sort();
  const builtIn = (d: FieldDiff) => d.why?.startsWith('built-in: ') === true;

  it(
    'the battery between two instances with different link secrets: no differences, exit 0; the signature, ' +
      'BuildTime and request ids are built-in noise',
    async () => {
      const { code, stdout, report } = await compare(a, a2, '--allow-post', '--header', 'X-Request-Id');
      expect(differences(report), stdout).to.deep.equal([]);
      expect(code, stdout).to.equal(0);
      const t = report.summary.totals;
      expect(t.requests).to.be.greaterThan(500);
      expect(t.skipped).to.equal(0);
      expect(t.errors).to.equal(0);
      expect(t.identical + t.noiseOnly + t.allowedOnly + t.different).to.equal(t.requests);
      expect(report.exchanges.flatMap((e) => e.allowed)).to.deep.equal([]);
      const noise = report.exchanges.flatMap((e) =>
        e.noise.map((d) => ({ ...d, comparer: e.comparer, rule: e.request.origin.rule })),
      );
      // Every noise field is one of the service's own: none had to be learnt from a second old answer.
      expect(noise.filter((d) => !builtIn(d)).map((d) => `${d.rule} ${d.path} ${d.why}`)).to.deep.equal([]);
      const why = (path: string, comparer: string) =>
        new Set(noise.filter((d) => d.path === path && d.comparer === comparer).map((d) => d.why));
      expect(why('$.Url', 'json')).to.deep.equal(new Set(['built-in: report link signature']));
      expect(why('$.Url', 'xml')).to.deep.equal(new Set(['built-in: report link signature']));
      // JSV answers are trees now: the same path as JSON's, not a byte comparison.
      expect(why('$.Url', 'jsv')).to.deep.equal(new Set(['built-in: report link signature']));
      // The HTML snapshot's text holds the link too (a line of the page), and the CSV answer's cell.
      expect(
        noise.some(
          (d) =>
            d.comparer === 'text' &&
            /^\$\[\d+\]$/.test(d.path) &&
            d.why!.includes('report link signature') &&
            String(d.old).includes('/Reports/'),
        ),
        'HTML snapshot line',
      ).to.equal(true);
      expect(
        noise.some((d) => d.comparer === 'csv' && d.path === '$.rows[0].Url'),
        'CSV cell',
      ).to.equal(true);
      expect(noise.filter((d) => d.path === 'header X-Request-Id').length).to.equal(t.requests);
      const csvLineBreaks = report.exchanges.filter((e) =>
        /^line-break:.*:format=csv$/.test(e.request.origin.rule ?? ''),
      );
      expect(csvLineBreaks.map((e) => [e.differences.length, ...e.noise.map((d) => d.path)])).to.deep.equal(
        Array(4).fill([0, 'header X-Request-Id']),
      );
      expect(stdout).to.match(/^ {2}noise {4}\$\.Url {2}×\d+ in \d+ endpoints {2}built-in: report link signature$/m);
      expect(stdout).to.match(/^\d+ requests: \d+ identical, 0 different/m);
    },
  );

  it(
    "the strict CSV reader reads the service's CSV answers with a line break in a cell as one row, the cell " + 'whole',
    async () => {
      for (const [name, value] of LINE_BREAKS) {
        const res = await fetch(`${a.url}/json/reply/EchoRequest?Message=${encodeURIComponent(value)}&format=csv`, {
          headers: { 'X-ApiKey': a.apiKey },
        });
        const rows = readCsvStrictly(await res.text());
        expect(rows, name).to.have.length(2);
        expect(rows[1]![rows[0]!.indexOf('Message')], name).to.equal(value.startsWith('=') ? `'${value}` : value);
      }
    },
  );

  it(
    'without the built-in noise the same run is hundreds of differences: each said once in a short summary, and a ' +
      'small HTML report',
    async () => {
      const html = join(dir, 'noisy.html');
      const { code, stdout, report } = await compare(a, a2, '--no-builtin-noise', '--html', html);
      expect(code).to.equal(1);
      const t = report.summary.totals;
      expect(t.different).to.be.greaterThan(100);
      const urls = report.summary.differences.find((f) => f.path === '$.Url')!;
      expect(urls.count).to.be.greaterThan(50);
      expect(urls.endpoints).to.be.greaterThan(2);
      // One line per differing field, however many requests show it.
      expect(stdout.split('\n').filter((l) => /^ {2}differs {2}\$\.Url {2}/.test(l))).to.have.length(1);
      expect(stdout.split('\n').length, stdout).to.be.lessThan(120);
      const page = readFileSync(html, 'utf8');
      const shown = (page.match(/<section class="exchange"/g) ?? []).length;
      expect(shown).to.be.at.most(60);
      expect(shown).to.be.lessThan(t.different);
      expect(page).to.include(`of ${t.different} (at most 2 per endpoint and rule)`);
      expect(Buffer.byteLength(page)).to.be.lessThan(3 * 1024 * 1024);
    },
  );

  it(
    'the battery against the instance with another COMPANY_NAME and another secret: exactly the anonymous echo ' +
      'answers differ, exit 1',
    async () => {
      const { code, stdout, report } = await compare(a, b, '--allow-post');
      expect(code, stdout).to.equal(1);
      expect(differences(report)).to.deep.equal([
        'op:Echo:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
        'op:EchoReplyBatch:anonymous $[0].CompanyName: "Reporting Service" → "Another Company"',
        'op:EchoReplyGet:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
        'op:EchoReplyPost:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
      ]);
      const echo = report.summary.byEndpoint.find((g) => g.name === 'GET /v1/echo/{Message}')!;
      expect(echo.different).to.equal(1);
      expect(echo.fields).to.deep.equal([
        { path: '$.CompanyName', count: 1, example: '"Reporting Service" → "Another Company"' },
      ]);
      expect(report.summary.byRule.find((g) => g.name === 'op:Echo:anonymous')!.different).to.equal(1);
      expect(stdout).to.include('differs  $.CompanyName  ×1  e.g. "Reporting Service" → "Another Company"');
      expect(stdout).to.include(
        'differs  $.CompanyName  ×3 in 3 endpoints  e.g. "Reporting Service" → "Another Company"',
      );
      expect(
        report.exchanges.filter((e) => e.noise.some((d) => d.path === '$.Url' && builtIn(d))).length,
        'the signatures differ too, as noise',
      ).to.be.greaterThan(10);
    },
  );

  it(
    'a rule names a field in any case convention: $..CompanyName also allows ?jsconfig= camelCase and ' +
      'lower_underscore answers, JSON and JSV',
    async () => {
      const list = join(dir, 'jsconfig.txt');
      writeFileSync(
        list,
        ['EmitCamelCaseNames:true', 'EmitLowercaseUnderscoreNames:true']
          .flatMap((c) => ['json', 'jsv'].map((f) => `/json/reply/EchoRequest?Message=hi&format=${f}&jsconfig=${c}`))
          .join('\n'),
      );
      const before = await compare(a.url, b.url, list);
      expect(before.code).to.equal(1);
      expect(
        before.report.exchanges.map((e) => `${e.comparer} ${e.differences.map((d) => d.path).join()}`),
      ).to.deep.equal(['json $.companyName', 'jsv $.companyName', 'json $.company_name', 'jsv $.company_name']);
      const after = await compare(a.url, b.url, list, '--ignore', '$..CompanyName');
      expect(after.code, after.stdout).to.equal(0);
      expect(after.report.summary.allowedBy).to.deep.equal([{ rule: 'ignore $..CompanyName', count: 4 }]);
    },
  );

  it('a header that changes on every call (X-Request-Id) is noise: reported apart, not a difference', async () => {
    const { code, stdout, report } = await compare(
      a,
      a2,
      '--header',
      'X-Request-Id',
      '--no-builtin-noise',
      '--ignore',
      '$..Url',
      '--ignore',
      '$..BuildTime',
      `urls:${join(FIXTURES, 'urls.txt')}`,
    );
    const replayed = report.exchanges.filter((e) => !e.skipped);
    expect(replayed.length).to.be.greaterThan(3);
    for (const e of replayed) {
      expect(
        e.noise.filter((d) => d.path === 'header X-Request-Id').map((d) => d.why),
        e.request.url,
      ).to.deep.equal(['differs between the two old answers']);
    }
    expect(stdout).to.match(/noise {4}header X-Request-Id {2}×\d+/);
    expect(code, stdout).to.equal(report.summary.totals.different ? 1 : 0);
  });

  it(
    '--old2: noise is what differs between two old instances (A and B as the old pair: the company name is ' + 'noise)',
    async () => {
      // The same comparison as above (A → B) is clean once B is also the second old instance.
      const { code, stdout, report } = await compare(a, b, '--old2', b.url, '--old2-header', `X-ApiKey: ${b.apiKey}`);
      expect(code, stdout).to.equal(0);
      expect(report.hosts.old2).to.equal(b.url);
      const noisy = report.exchanges.filter((e) => e.noise.some((d) => !builtIn(d)));
      expect(noisy.map((e) => e.request.origin.rule).sort()).to.deep.equal([
        'op:Echo:anonymous',
        'op:EchoReplyGet:anonymous',
      ]);
      for (const e of noisy)
        expect(e.noise.filter((d) => !builtIn(d)).map((d) => `${d.path} ${d.why}`)).to.deep.equal([
          '$.CompanyName differs between the two old answers',
        ]);
    },
  );

  it('--ignore and a rules file allow differences, counted under their rule; exit 0', async () => {
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({ ignore: [{ path: '$..CompanyName', endpoint: 'GET /v1/echo/{Message}' }] }));
    const { code, stdout, report } = await compare(a, b, '--rules', rules, '--ignore', '$.CompanyName');
    expect(code, stdout).to.equal(0);
    expect(report.summary.allowedBy).to.deep.equal([
      { rule: 'ignore $..CompanyName (GET /v1/echo/{Message})', count: 1 },
      { rule: 'ignore $.CompanyName', count: 1 },
    ]);
    const companyName = report.exchanges.filter((e) => e.allowed.some((d) => d.path === '$.CompanyName'));
    expect(companyName.map((e) => e.request.origin.rule).sort()).to.deep.equal([
      'op:Echo:anonymous',
      'op:EchoReplyGet:anonymous',
    ]);
  });

  it(
    'POST is not replayed without --allow-non-get: those requests are reported as skipped, the reason on the ' +
      'terminal',
    async () => {
      const { report, stdout } = await compare(a, a2);
      const posts = report.exchanges.filter((e) => e.request.method === 'POST');
      expect(posts.length).to.be.greaterThan(20);
      for (const e of posts) {
        expect(e.skipped).to.equal('POST is replayed only with --allow-non-get (the old host is production)');
        expect(e.old).to.equal(undefined);
      }
      const skipped = report.exchanges.filter((e) => e.skipped);
      expect(report.summary.totals.skipped).to.equal(skipped.length);
      expect(stdout).to.match(
        new RegExp(`Skipped \\(not replayed\\)\n +${posts.length}  POST is replayed only with --allow-non-get`),
      );
    },
  );

  it(
    'a recording of OPTIONS, PUT, DELETE and PATCH: skipped with the reason unless --allow-non-get, then replayed ' +
      'and their differences shown',
    async () => {
      const har = `har:${join(FIXTURES, 'verbs.har')}`;
      // Anonymous (hosts given as URLs): echo answers each instance's COMPANY_NAME, which differs between A and B.
      const before = await compare(a.url, b.url, har);
      expect(before.code, before.stdout).to.equal(0);
      expect(before.report.exchanges.map((e) => e.skipped)).to.deep.equal(
        ['OPTIONS', 'PUT', 'PUT', 'DELETE', 'PATCH'].map(
          (verb) => `${verb} is replayed only with --allow-non-get (the old host is production)`,
        ),
      );
      for (const line of [
        '      2  PUT is replayed only with --allow-non-get (the old host is production)',
        '      1  OPTIONS is replayed only with --allow-non-get (the old host is production)',
        '      1  DELETE is replayed only with --allow-non-get (the old host is production)',
        '      1  PATCH is replayed only with --allow-non-get (the old host is production)',
      ])
        expect(before.stdout).to.include(line);

      const after = await compare(a.url, b.url, har, '--allow-non-get', '--header', 'Allow');
      expect(after.code, after.stdout).to.equal(1);
      expect(
        after.report.exchanges.map((e) => `${e.request.method} ${e.old?.status}/${e.new?.status} ${e.outcome}`),
      ).to.deep.equal([
        'OPTIONS 405/405 identical',
        'PUT 200/200 different',
        'PUT 405/405 identical',
        'DELETE 200/200 different',
        'PATCH 200/200 different',
      ]);
      expect(differences(after.report)).to.deep.equal([
        '/json/reply/EchoRequest $.CompanyName: "Reporting Service" → "Another Company"',
        '/json/reply/EchoRequest $.CompanyName: "Reporting Service" → "Another Company"',
        '/v1/echo/deleted $.CompanyName: "Reporting Service" → "Another Company"',
      ]);
      expect(after.report.summary.byEndpoint.map((g) => `${g.name} ${g.different}`).sort()).to.deep.equal([
        // Verbs the contract has no operation for are grouped by their path.
        'DELETE /v1/echo/deleted 1',
        'OPTIONS /json/reply/EchoRequest 0',
        'PATCH /json/reply/EchoRequest 1',
        'PUT /json/reply/EchoRequest 1',
      ]);
      expect(after.report.summary.totals.skipped).to.equal(0);
      expect(after.stdout).not.to.include('Skipped (not replayed)');
    },
  );

  it('replays log, HAR and URL-list sources, reporting each bad line with its number', async () => {
    const sources = [
      `w3c:${join(FIXTURES, 'iis-w3c.log')}`,
      join(FIXTURES, 'access-combined.log'),
      join(FIXTURES, 'capture.har'),
      join(FIXTURES, 'urls.txt'),
    ];
    const { code, stdout, stderr, report } = await compare(a, b, ...sources);
    expect(stderr).to.include('iis-w3c.log:7: skipped: 5 values for 15 #Fields');
    expect(stderr, 'no progress bar when stderr is not a terminal').not.to.include('compare [');
    expect(stderr).to.include('access-combined.log:3: skipped: not a common/combined log line');
    expect(stderr).to.include('capture.har:27: skipped: entries[1]: bad request.url "not a url"');
    expect(stderr).to.include('urls.txt:6: skipped: expected URL or METHOD URL');
    expect(report.sources.map((s) => [s.source, s.requests, s.issues])).to.deep.equal([
      ['w3c', 4, 2],
      ['access-log', 4, 2],
      ['har', 2, 2],
      ['urls', 4, 2],
    ]);
    // Every request carries each host's key, so echo answers the key's company on both: no difference.
    expect(code, stdout).to.equal(0);
    expect(report.summary.totals.skipped).to.equal(2); // the POSTs of the W3C log and the HAR
  });

  it('every request has a time-out: a host that never answers is reported, not waited for', async () => {
    const hung: Server = createServer(() => {
      /* accept, never answer */
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = (hung.address() as { port: number }).port;
    const list = join(dir, 'one.txt');
    writeFileSync(list, '/v1/echo/hello\n');
    try {
      const { code, report } = await compare(`http://127.0.0.1:${port}`, a, list, '--timeout', '500');
      expect(code).to.equal(1);
      expect(report.exchanges[0]!.old!.error).to.equal('time-out after 500 ms');
      expect(report.exchanges[0]!.differences.map((d) => d.path)).to.include.members(['error', 'status']);
    } finally {
      hung.close();
    }
  });
});
