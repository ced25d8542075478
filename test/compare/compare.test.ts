/**
 * `npm run compare` end to end, against real instances of this service started as a user starts them (`npm start`'s
 * `node dist/src/start.js`, each over its own DuckDB store with the demo ledger and the demo key it prints): A and A2 configured alike, B
 * with another COMPANY_NAME. The tool finds exactly that difference on the whole battery and nothing between A and
 * A2; a header that changes on every call (X-Request-Id) and ReportModel.BuildTime are noise, not differences;
 * explicit rules allow differences; POST is replayed only with --allow-post; a hung host times out. The HTML report
 * is opened in Chromium (test/compare/html-report.test.ts), the source parsers on fixtures (sources.test.ts).
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
import { ensureProductionBuild, startProductionServer, type ServerProcess } from '../support/server-process.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
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
    // One link secret for all: report Urls are signed, and a different secret would be a real difference.
    const common = { REPORT_LINK_SECRET: 'compare-test-secret' };
    [a, a2, b] = await Promise.all([
      startService(mkdtempSync(join(dir, 'a-')), common),
      startService(mkdtempSync(join(dir, 'a2-')), common),
      startService(mkdtempSync(join(dir, 'b-')), { ...common, COMPANY_NAME: 'Another Company' }),
    ]);
  });
  after(async () => {
    await Promise.all([a, a2, b].filter(Boolean).map((s) => s.server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  let counter = 0;
  async function compare(old: ServiceProcess | string, neu: ServiceProcess, ...args: string[]): Promise<CliResult> {
    const json = join(dir, `report-${++counter}.json`);
    const oldArgs = typeof old === 'string' ? ['--old', old] : ['--old', old.url, '--old-header', `X-ApiKey: ${old.apiKey}`];
    const argv = ['tsx', 'scripts/compare.ts', ...oldArgs, '--new', neu.url, '--new-header', `X-ApiKey: ${neu.apiKey}`, '--json', json, ...args];
    const { code, stdout, stderr } = await run('npx', argv, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
    );
    let report: CompareReport;
    try {
      report = JSON.parse(readFileSync(json, 'utf8')) as CompareReport;
    } catch {
      throw new Error(`no JSON report (exit ${code}):\n${stdout}\n${stderr}`);
    }
    return { code, stdout, stderr, report };
  }

  // In the text formats (the HTML snapshot's line, CSV's and JSV's ReportModel value) BuildTime is not a path of its own:
  // a difference whose only change is the BuildTime value is that same timing.
  const withoutBuildTime = (text: unknown) => JSON.stringify(text ?? '').replace(/(Build ?Time(<\/dt><dd>|:|&quot;: ))\d+/g, '$1#');
  const isBuildTime = (d: { path: string; old?: unknown; new?: unknown }) =>
    d.path === '$.ReportModel.BuildTime' || (/Build ?Time/.test(JSON.stringify(d.old ?? '')) && withoutBuildTime(d.old) === withoutBuildTime(d.new));
  /** Exit 0, or exit 1 for BuildTime alone (chance: see BUILD_TIME). */
  const cleanExit = (code: number, report: CompareReport) => code === 0 || report.exchanges.every((e) => e.differences.every(isBuildTime));
  const differences = (report: CompareReport) =>
    report.exchanges.flatMap((e) => e.differences.filter((d) => !isBuildTime(d)).map((d) => `${e.request.origin.rule ?? e.request.url} ${d.path}: ${JSON.stringify(d.old)} → ${JSON.stringify(d.new)}`)).sort();

  // ReportModel.BuildTime is the report's own timing: it differs between calls only now and then (often 0 ms), so
  // whether the second old answer catches it is chance. The tests that are not about noise allow it explicitly.
  const BUILD_TIME = ['--ignore', '$.ReportModel.BuildTime'];

  it('the battery between two alike instances: no differences, exit 0', async () => {
    const { code, stdout, report } = await compare(a, a2, '--allow-post', ...BUILD_TIME);
    expect(differences(report), stdout).to.deep.equal([]);
    expect(cleanExit(code, report), stdout).to.equal(true);
    const t = report.summary.totals;
    expect(t.requests).to.be.greaterThan(300);
    expect(t.skipped).to.equal(0);
    expect(t.errors).to.equal(0);
    expect(t.identical + t.noiseOnly + t.allowedOnly + t.different).to.equal(t.requests);
    const other = report.exchanges.flatMap((e) => [...e.noise, ...e.allowed]).filter((d) => !isBuildTime(d));
    expect(other).to.deep.equal([]);
    expect(stdout).to.match(/^\d+ requests: \d+ identical, \d+ different/m);
  });

  it('the battery against the instance with another COMPANY_NAME: exactly the anonymous echo answers differ, exit 1', async () => {
    const { code, stdout, report } = await compare(a, b, '--allow-post', ...BUILD_TIME);
    expect(code, stdout).to.equal(1);
    expect(differences(report)).to.deep.equal([
      'op:Echo:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
      'op:EchoReplyGet:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
      'op:EchoReplyPost:anonymous $.CompanyName: "Reporting Service" → "Another Company"',
    ]);
    const echo = report.summary.byEndpoint.find((g) => g.name === 'GET /v1/echo/{Message}')!;
    expect(echo.different).to.equal(1);
    expect(echo.fields).to.deep.equal([{ path: '$.CompanyName', count: 1, example: '"Reporting Service" → "Another Company"' }]);
    expect(report.summary.byRule.find((g) => g.name === 'op:Echo:anonymous')!.different).to.equal(1);
    expect(stdout).to.include('differs  $.CompanyName  ×1  e.g. "Reporting Service" → "Another Company"');
  });

  it('a header that changes on every call (X-Request-Id) is noise: reported apart, not a difference', async () => {
    const { code, stdout, report } = await compare(a, a2, '--header', 'X-Request-Id', ...BUILD_TIME);
    expect(cleanExit(code, report), stdout).to.equal(true);
    const replayed = report.exchanges.filter((e) => !e.skipped);
    expect(replayed.length).to.be.greaterThan(200);
    for (const e of replayed) {
      expect(e.differences.filter((d) => !isBuildTime(d)), e.request.url).to.deep.equal([]);
      expect(e.noise.map((d) => d.path), e.request.url).to.include('header X-Request-Id');
    }
    expect(stdout).to.match(/noise {4}header X-Request-Id {2}×\d+/);
  });

  it('--old2: noise is what differs between two old instances (A and B as the old pair: the company name is noise)', async () => {
    // The same comparison as above (A → B) is clean once B is also the second old instance.
    const { code, stdout, report } = await compare(a, b, '--old2', b.url, '--old2-header', `X-ApiKey: ${b.apiKey}`, ...BUILD_TIME);
    expect(cleanExit(code, report), stdout).to.equal(true);
    expect(report.hosts.old2).to.equal(b.url);
    const noisy = report.exchanges.filter((e) => e.noise.some((d) => !isBuildTime(d)));
    expect(noisy.map((e) => e.request.origin.rule).sort()).to.deep.equal(['op:Echo:anonymous', 'op:EchoReplyGet:anonymous']);
    for (const e of noisy) expect(e.noise.filter((d) => !isBuildTime(d)).map((d) => d.path)).to.deep.equal(['$.CompanyName']);
  });

  it('--ignore and a rules file allow differences, counted under their rule; exit 0', async () => {
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({ ignore: [{ path: '$..CompanyName', endpoint: 'GET /v1/echo/{Message}' }] }));
    const { code, stdout, report } = await compare(a, b, '--rules', rules, '--ignore', '$.CompanyName', ...BUILD_TIME);
    expect(cleanExit(code, report), stdout).to.equal(true);
    expect(report.summary.allowedBy.filter((r) => !r.rule.includes('BuildTime'))).to.deep.equal([
      { rule: 'ignore $..CompanyName (GET /v1/echo/{Message})', count: 1 },
      { rule: 'ignore $.CompanyName', count: 1 },
    ]);
    const companyName = report.exchanges.filter((e) => e.allowed.some((d) => d.path === '$.CompanyName'));
    expect(companyName.map((e) => e.request.origin.rule).sort()).to.deep.equal(['op:Echo:anonymous', 'op:EchoReplyGet:anonymous']);
  });

  it('POST is not replayed without --allow-post: those requests are reported as skipped', async () => {
    const { report } = await compare(a, a2);
    const posts = report.exchanges.filter((e) => e.request.method === 'POST');
    expect(posts.length).to.be.greaterThan(20);
    for (const e of posts) {
      expect(e.skipped).to.equal('POST is replayed only with --allow-post');
      expect(e.old).to.equal(undefined);
    }
    expect(report.summary.totals.skipped).to.equal(posts.length);
  });

  it('replays log, HAR and URL-list sources, reporting each bad line with its number', async () => {
    const sources = ['w3c:' + join(FIXTURES, 'iis-w3c.log'), join(FIXTURES, 'access-combined.log'), join(FIXTURES, 'capture.har'), join(FIXTURES, 'urls.txt')];
    const { code, stdout, stderr, report } = await compare(a, b, ...sources, ...BUILD_TIME);
    expect(stderr).to.include('iis-w3c.log:7: skipped: 5 values for 15 #Fields');
    expect(stderr, 'no progress bar when stderr is not a terminal').not.to.include('compare [');
    expect(stderr).to.include('access-combined.log:3: skipped: not a common/combined log line');
    expect(stderr).to.include('capture.har:27: skipped: entries[1]: bad request.url "not a url"');
    expect(stderr).to.include('urls.txt:6: skipped: expected URL or METHOD URL');
    expect(report.sources.map((s) => [s.source, s.requests, s.issues])).to.deep.equal([['w3c', 4, 2], ['access-log', 4, 2], ['har', 2, 2], ['urls', 4, 2]]);
    // Every request carries each host's key, so echo answers the key's company on both: no difference.
    expect(code, stdout).to.equal(0);
    expect(report.summary.totals.skipped).to.equal(2); // the POSTs of the W3C log and the HAR
  });

  it('every request has a time-out: a host that never answers is reported, not waited for', async () => {
    const hung: Server = createServer(() => { /* accept, never answer */ });
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
