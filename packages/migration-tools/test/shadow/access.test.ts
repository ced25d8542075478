/**
 * Red team round 4 (issue 36), findings 1, 2, 3 and 7, against `npm run shadow` between two real instances of this
 * service (the production process, each over its own DuckDB store with its own demo key): the mirror sent anonymous
 * callers' requests to the new service with the operator's `--new-header` key and showed them the answers; the page
 * and its JSON were on the port clients use, for anyone; twenty differing 10 MB exchanges made the JSON longer than a
 * string may be (the proxy exited); 150 parallel 9 MB answers held gigabytes of copies. Now a request carries exactly
 * its caller's credentials (or their mapped counterparts), the page is on a loopback port of its own behind a token,
 * differences are bounded in bytes, and the copies are bounded by --memory-limit.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ShadowSnapshot } from '../../src/shadow/stats.ts';
import { ensureProductionBuild, REPO_ROOT } from '../../../../scripts/lib/server-process.ts';
import { pageOf, settled, startDemoService, startShadow, TSX, type DemoService } from '../support/shadow-instances.ts';

const FLAT =
  '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-03-31';
/** The new instance's company name: every echo's CompanyName differs by 100,000 characters. */
const LONG_NAME = 'N'.repeat(100_000);
/** A batch of echoes whose answer is about 9 MB (90 CompanyNames of 100,000 characters). */
const BIG_BATCH = JSON.stringify(Array.from({ length: 90 }, (_, i) => ({ Message: `m${i}` })));

/** How long the mirror may take to settle (9 MB exchanges take their time). */
const SETTLE_MS = 120_000;

/** Resident memory of a process and its descendants (MB): tsx runs the proxy in a child process. */
function treeRssMb(pid: number): number {
  let kb = 0;
  const visit = (p: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${p}/task`))
        for (const child of readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').split(' ').filter(Boolean))
          visit(Number(child));
    } catch {
      // the process ended meanwhile
    }
  };
  visit(pid);
  return kb / 1024;
}

describe('npm run shadow never widens access and stays bounded (issue 36, findings 1, 2, 3, 7)', function () {
  this.timeout(600_000);
  let dir: string;
  let a: DemoService;
  let b: DemoService;
  let map: string;
  /** A proxy from the old host with the long company name (its 9 MB answers are what it copies) to the other. */
  const bigAnswerShadow = (...options: string[]) =>
    startShadow('--old', b.url, '--new', a.url, '--listen', '0', '--allow-post', ...options);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-shadow-access-'));
    await ensureProductionBuild();
    [a, b] = await Promise.all([
      startDemoService(join(dir, 'a'), { BODY_LIMIT_BYTES: '20000000' }),
      startDemoService(join(dir, 'b'), { BODY_LIMIT_BYTES: '20000000', COMPANY_NAME: LONG_NAME }),
    ]);
    map = join(dir, 'credentials.json');
    writeFileSync(map, JSON.stringify([{ old: `X-ApiKey: ${a.apiKey}`, new: `X-ApiKey: ${b.apiKey}` }]));
  });
  after(async () => {
    await Promise.all([a?.server.stop(), b?.server.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "finding 1: the README's blanket --new-header key is refused; an anonymous caller's mirror carries no " + 'key',
    async () => {
      const blanket = await promisify(execFile)(
        TSX,
        [
          'packages/migration-tools/scripts/shadow.ts',
          '--old',
          a.url,
          '--new',
          b.url,
          '--listen',
          '0',
          '--new-header',
          `X-ApiKey: ${b.apiKey}`,
        ],
        { cwd: REPO_ROOT },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(blanket.code).to.equal(2);
      expect(blanket.stderr).to.contain("--new-header 'X-ApiKey' is a credential");

      const proxy = await startShadow('--old', a.url, '--new', b.url, '--listen', '0', '--credential-map', map);
      try {
        // Anonymous: the old host says 401, and so does the new service, asked without a key.
        expect((await fetch(`${proxy.url}${FLAT}`)).status).to.equal(401);
        // An unknown key: 401 on both, sent as it came.
        expect(
          (await fetch(`${proxy.url}${FLAT}`, { headers: { 'X-ApiKey': 'rsk_unknownUnknownUnknown' } })).status,
        ).to.equal(401);
        // The old host's key: mapped to the new service's, both 200, the same figures.
        expect((await fetch(`${proxy.url}${FLAT}`, { headers: { 'X-ApiKey': a.apiKey } })).status).to.equal(200);
        const s = await settled(proxy, (f) => f.totals.mirrored === 3, SETTLE_MS);
        const flat = s.endpoints.find((e) => e.endpoint === 'GET /v1/Reporting/ProfitAndLoss/Flat')!;
        expect(flat).to.include({ served: 3, mirrored: 3, different: 0 });
        const json = JSON.stringify(s);
        // A noise path such as $.ReportModel.BuildTime may be listed; a report's body may not.
        expect(json).to.not.match(/"ReportModel":|"Rows"|Harbor Bistro/);
        expect(json).to.not.contain(b.apiKey);
        expect(json).to.not.contain(a.apiKey);
      } finally {
        await proxy.stop();
      }
    },
  );

  it(
    "finding 3: /_shadow and /_shadow.json on the client port are the old host's; the page port wants its " + 'token',
    async () => {
      const proxy = await startShadow('--old', a.url, '--new', b.url, '--listen', '0', '--credential-map', map);
      try {
        for (const path of ['/_shadow', '/_shadow.json', '/_shadow.json?token=x']) {
          const [through, direct] = await Promise.all([fetch(`${proxy.url}${path}`), fetch(`${a.url}${path}`)]);
          expect(through.status, path).to.equal(direct.status);
          expect(await through.text(), path).to.equal(await direct.text());
        }
        const { page, json } = pageOf(proxy);
        const bare = (u: string) => u.replace(/\?token=.*$/, '');
        expect(new URL(page).hostname).to.equal('127.0.0.1');
        expect(new URL(page).port).to.not.equal(new URL(proxy.url).port);
        for (const url of [bare(page), bare(json), `${bare(json)}?token=0123456789abcdef0123456789abcdef`]) {
          const res = await fetch(url);
          expect(res.status, url).to.equal(401);
          expect(await res.text()).to.not.contain('served');
        }
        // Finding 10: ServiceStack's session and token names are secrets on the page too (this echo differs: kept).
        const secrets = ['eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu', 'SessionSecret123', 'JwtSecret4567', 'PwdSecret890'];
        const query = `ss-tok=${secrets[0]}&ss-id=${secrets[1]}&jwt=${secrets[2]}&pwd=${secrets[3]}`;
        expect((await fetch(`${proxy.url}/v1/echo/session?${query}`)).status).to.equal(200);
        const token = new URL(json).searchParams.get('token')!;
        const sessionKept = (f: ShadowSnapshot) => f.latest.some((r) => r.request.url.startsWith('/v1/echo/session'));
        const kept = await settled(proxy, sessionKept, SETTLE_MS);
        const keptText = JSON.stringify(kept);
        for (const secret of secrets) expect(keptText, secret).to.not.contain(secret);
        expect(keptText).to.contain('ss-tok=[redacted]');
        expect((await fetch(bare(json), { headers: { Authorization: `Bearer ${token}` } })).status).to.equal(200);
        expect((await fetch(page)).status).to.equal(200);
      } finally {
        await proxy.stop();
      }
    },
  );

  // The old host is the one with the long company name: its 9 MB answers are what the proxy copies.
  it(
    'finding 2: twenty differing 9 MB exchanges, then the JSON and the page: bounded, values clipped, no bodies, ' +
      'alive',
    async () => {
      const proxy = await bigAnswerShadow('--concurrency', '2', '--timeout', '30000');
      try {
        for (let i = 0; i < 20; i++) {
          const res = await fetch(`${proxy.url}/json/reply/EchoRequest[]`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: BIG_BATCH,
          });
          expect(res.status).to.equal(200);
          await res.arrayBuffer();
        }
        const s = await settled(proxy, (f) => f.totals.mirrored === 20, SETTLE_MS);
        expect(s.totals.different, JSON.stringify(s.totals)).to.be.at.least(10);
        expect(s.latest.length).to.be.at.least(10);
        expect(s.latest.some((r) => (r as { omitted?: { differences: number } }).omitted?.differences === 40)).to.equal(
          true,
        );
        const text = await (await fetch(pageOf(proxy).json)).text();
        expect(text.length, 'JSON characters').to.be.below(3_000_000);
        const page = await fetch(pageOf(proxy).page);
        expect(page.status).to.equal(200);
        expect((await page.text()).length, 'page characters').to.be.below(3_000_000);
        for (const record of s.latest) {
          expect(record.bodies, 'bodies kept without --show-bodies').to.equal(undefined);
          expect(record.differences.length).to.be.at.most(50);
          const omitted = (record as { omitted?: { differences: number } }).omitted?.differences;
          if (record.outcome === 'different' && record.differences.length === 50) expect(omitted).to.equal(40);
          for (const d of record.differences) expect(JSON.stringify(d).length).to.be.below(2_000);
        }
        expect((await fetch(`${proxy.url}/v1/echo/alive`)).status).to.equal(200);
      } finally {
        await proxy.stop();
      }
    },
  );

  it(
    'finding 2, npm run compare: twenty differing 9 MB answers from a HAR; compare.json is written, ' + 'bounded',
    async () => {
      const har = join(dir, 'big.har');
      const entry = {
        request: {
          method: 'POST',
          url: 'http://old-host/json/reply/EchoRequest[]',
          headers: [],
          postData: { mimeType: 'application/json', text: BIG_BATCH },
        },
      };
      writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: Array.from({ length: 20 }, () => entry) } }));
      const out = join(dir, 'compare.json');
      const result = await promisify(execFile)(
        TSX,
        [
          'packages/migration-tools/scripts/compare.ts',
          '--old',
          b.url,
          '--new',
          a.url,
          '--allow-post',
          har,
          '--json',
          out,
          '--timeout',
          '60000',
        ],
        { cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 64 << 20 },
      ).then(
        () => ({ code: 0 }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect(result.code, JSON.stringify(result).slice(0, 2000)).to.equal(1); // differences found, the report written
      const text = readFileSync(out, 'utf8');
      expect(text.length, 'compare.json characters').to.be.below(30_000_000);
      const report = JSON.parse(text) as { exchanges: { differences: unknown[]; omitted?: { differences: number } }[] };
      expect(report.exchanges).to.have.length(20);
      for (const exchange of report.exchanges) {
        expect(exchange.differences).to.have.length(50);
        expect(exchange.omitted?.differences).to.equal(40);
        for (const d of exchange.differences) expect(JSON.stringify(d).length).to.be.below(2_000);
      }
    },
  );

  it(
    'finding 7: 60 parallel 9 MB answers through the proxy: its copies stay within --memory-limit, the rest ' +
      'dropped',
    async () => {
      const proxy = await bigAnswerShadow('--concurrency', '1', '--memory-limit', '33554432');
      try {
        const pid = proxy.child.pid!;
        const baseline = treeRssMb(pid);
        let peak = baseline;
        const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(pid))), 20);
        const answers = await Promise.all(
          Array.from({ length: 60 }, async () => {
            const res = await fetch(`${proxy.url}/json/reply/EchoRequest[]`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: BIG_BATCH,
            });
            return [res.status, (await res.arrayBuffer()).byteLength] as const;
          }),
        );
        const s = await settled(proxy, () => true, SETTLE_MS);
        clearInterval(sampler);
        for (const [status, bytes] of answers) {
          expect(status).to.equal(200);
          expect(bytes).to.be.above(8_000_000);
        }
        console.log(
          `      shadow proxy RSS: ${baseline.toFixed(0)} MB at rest, peak ${peak.toFixed(0)} ` +
            `MB; ${JSON.stringify(s.totals)}`,
        );
        expect(s.droppedBecause?.['copies over --memory-limit'] ?? 0, 'dropped for memory').to.be.above(0);
        expect(peak - baseline, 'proxy RSS growth (MB)').to.be.below(600);
      } finally {
        await proxy.stop();
      }
    },
  );
});
