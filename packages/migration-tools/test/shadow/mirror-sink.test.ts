/**
 * `npm run shadow -- --mirror-sink`, started with its shipped unit's ExecStart (deploy/systemd/
 * reporting-shadow-sink.service), behind real nginx running the shipped shadow-phase site
 * (deploy/nginx/reporting-service-shadow.conf, only its ports, paths and sample replaced): nginx serves the old host to
 * clients and mirrors their requests to the sink, which asks the old host and the new service itself and compares.
 * Old and new are real instances of this service started as users start them (`node dist/src/start.js`, the demo
 * ledger, each its own demo key, BASE_PATH=/reporting behind nginx), the old one with another COMPANY_NAME. Clients
 * get the old host's answers; the sink finds the new one's differences; it forwards the caller's own credentials
 * only (a key of its own is refused at start); a stopped sink never fails a client; at most 100 mirrors a second;
 * nginx reuses its connections to the sink, whose mirror thread alone runs at SCHED_IDLE. Then, with hosts that
 * record what they get in the old host's and the sink's places: the old host is asked the same in the sample, out of
 * it and with no mirror at all; a sampled request reaches the sink as the old host got it; an unsampled one makes no
 * mirror (the shipped 10% draws about one in ten).
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../../scripts/lib/free-port.ts';
import { type HttpsAnswer, httpsRequest } from '../../../../test/support/https-client.ts';
import { startShadowNginx, type RunningNginx } from '../../../../scripts/lib/nginx.ts';
import { ensureProductionBuild, REPO_ROOT, type ServerProcess } from '../../../../scripts/lib/server-process.ts';
import type { ShadowSnapshot } from '../../src/shadow/stats.ts';
import { type RecordedRequest, type RecordingHost, startRecordingHost } from '../support/recording-host.ts';
import {
  figures,
  NEVER_CPU_BUSY,
  settled,
  startDemoService,
  startShadow,
  TSX,
  type DemoService,
} from '../support/shadow-instances.ts';
import { startSinkUnit, verifyUnit } from '../../../../scripts/lib/systemd-unit.ts';

const ECHO = '/reporting/v1/echo/hello';
const FLAT = '/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true';
/** Linux scheduling policies (sched(7)) as /proc/<pid>/task/<tid>/stat's 41st field gives them. */
const [SCHED_OTHER, SCHED_IDLE] = [0, 5];

/** A process and its descendants (Linux: /proc/<pid>/task/<pid>/children). */
function descendants(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return [pid, ...children.flatMap(descendants)];
}

/** Each thread of a process: its name, nice value (19th field of stat) and scheduling policy (41st). */
function threadsOf(pid: number): { pid: number; tid: number; name: string; nice: number; policy: number }[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { pid, tid: Number(tid), name, nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) };
  });
}

type Service = DemoService & { origin: string; port: number };

/** An instance as the site expects it (BASE_PATH=/reporting, behind a loopback proxy), with its origin and port. */
async function startService(dataDir: string, env: Record<string, string>): Promise<Service> {
  const service = await startDemoService(dataDir, { BASE_PATH: '/reporting', TRUST_PROXY: 'loopback', ...env });
  const url = new URL(service.url);
  return { ...service, origin: url.origin, port: Number(url.port) };
}

/** The sink's figures once it has received `received` requests and none is waiting. */
const settledAt = (sink: ServerProcess, received: number) => settled(sink, (s) => s.totals.served >= received);

describe('npm run shadow -- --mirror-sink behind nginx (deploy/nginx/reporting-service-shadow.conf)', function () {
  this.timeout(300_000);
  let dir: string;
  let old: Service;
  let neu: Service;
  let sink: ServerProcess;
  let sinkPort: number;
  let nginx: RunningNginx;
  const get = (path: string, headers: Record<string, string> = {}) =>
    httpsRequest(nginx.httpsUrl + path, { ca: nginx.certificate, headers });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-mirror-sink-'));
    await ensureProductionBuild();
    [old, neu] = await Promise.all([
      startService(mkdtempSync(join(dir, 'old-')), { COMPANY_NAME: 'Legacy Host', REPORT_LINK_SECRET: 'old-secret' }),
      startService(mkdtempSync(join(dir, 'new-')), { REPORT_LINK_SECRET: 'new-secret' }),
    ]);
    sinkPort = await freePort();
    // As deploy/systemd/reporting-shadow-sink.service starts it, its shipped ports and paths replaced.
    sink = await startSinkUnit(
      {
        '9091': String(sinkPort),
        'http://127.0.0.1:8090': old.origin,
        'http://127.0.0.1:8080': neu.origin,
        '9092': '0',
        '/var/lib/reporting-service/shadow-report.json': join(dir, 'shadow-report.json'),
      },
      NEVER_CPU_BUSY,
    );
    nginx = await startShadowNginx({
      http: await freePort(),
      https: await freePort(),
      legacy: old.port,
      sink: sinkPort,
      sample: '100%',
    });
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all([sink, old?.server, neu?.server].filter(Boolean).map((p) => p!.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("clients get the old host's answers; the sink compares each request and finds the differences", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await get(ECHO);
      expect(res.status).to.equal(200);
      expect(JSON.parse(res.text).CompanyName).to.equal('Legacy Host');
    }
    const s = await settledAt(sink, 5);
    expect(s.totals).to.include({ served: 5, mirrored: 5, different: 5, dropped: 0, errors: 0 });
    // Named by its path: the contract's routes do not hold the /reporting base.
    const echo = s.endpoints.find((e) => e.endpoint === `GET ${ECHO}`)!;
    expect(echo.fields.map((f) => `${f.path} ${f.example}`)).to.deep.equal([
      '$.CompanyName "Legacy Host" → "Reporting Service"',
    ]);
    expect(s.latest[0]!.request.url).to.equal(ECHO);
  });

  it("only the caller's credentials are sent: the old key fails on the new host; none is kept", async () => {
    const res = await get(FLAT, { 'X-ApiKey': old.apiKey });
    expect(res.status).to.equal(200);
    const s = await settledAt(sink, 6);
    const flat = s.latest.find((e) => e.request.url.includes('ProfitAndLoss'))!;
    expect(flat.old!.status).to.equal(200);
    expect([401, 403]).to.include(flat.new!.status);
    expect(flat.differences.map((d) => d.path)).to.include('status');
    const json = JSON.stringify(await figures(sink));
    expect(json).not.to.include(old.apiKey);
    expect(json).not.to.include(neu.apiKey);
  });

  it('a key of its own is refused at start (exit 2): a sink never widens what a caller may read', async () => {
    const run = promisify(execFile);
    const failed = await run(
      TSX,
      [
        'packages/migration-tools/scripts/shadow.ts',
        '--mirror-sink',
        '--old',
        old.origin,
        '--new',
        neu.origin,
        '--listen',
        '0',
        '--new-header',
        `X-ApiKey: ${neu.apiKey}`,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: '' } },
    ).then(
      () => undefined,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(failed?.code).to.equal(2);
    expect(failed?.stderr).to.include(
      "--new-header 'X-ApiKey': a mirror sink sends only each caller's own credentials, never a key of its own",
    );
  });

  it('a POST is served, not mirrored (the old host answered it; --allow-post and --old2 to compare)', async () => {
    const res = await httpsRequest(`${nginx.httpsUrl}/reporting/json/reply/EchoRequest`, {
      ca: nginx.certificate,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"Message":"posted"}',
    });
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.text).Message).to.equal('posted');
    const s = await settledAt(sink, 7);
    expect(s.skippedBecause).to.deep.equal({ 'POST without --allow-post': 1 });
  });

  it('while the CPUs are busy mirrors are dropped before a host is asked, then compared again', async () => {
    const hosts = ['--old', old.origin, '--new', neu.origin];
    const busy = await startShadow('--mirror-sink', ...hosts, '--listen', '0', '--cpu-busy', '70');
    const mirror = async () => expect((await fetch(busy.url + ECHO)).status).to.equal(204);
    try {
      // More spinning processes than cores: the CPUs are busy all the time.
      const spinners = Array.from({ length: 3 * availableParallelism() }, () =>
        spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }),
      );
      try {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        for (let i = 0; i < 5; i++) await mirror();
      } finally {
        for (const spinner of spinners) spinner.kill('SIGKILL');
      }
      const during = await settled(busy, (s) => s.totals.served >= 5);
      expect(during.totals).to.include({ served: 5, mirrored: 0, dropped: 5 });
      expect(during.droppedBecause).to.deep.equal({ 'CPU busy (--cpu-busy)': 5 });
      // Once the CPUs are under 70% busy again (other work on the machine may hold them up for a while).
      let after = during;
      for (let i = 0; i < 60 && after.totals.mirrored === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await mirror();
        after = await settled(busy, (s) => s.totals.served >= 6 + i);
      }
      expect(after.totals.mirrored).to.equal(1);
      expect(after.totals.different).to.equal(1);
    } finally {
      await busy.stop();
    }
  });

  it('nginx keeps its connections to the sink; only the mirror thread runs at SCHED_IDLE', async function () {
    if (process.platform !== 'linux') this.skip();
    // nginx keeps an upstream connection of a mirror only when its answer has no body (the sink's 204).
    const before = await figures(sink);
    for (let i = 0; i < 20; i++) expect((await get(ECHO)).status).to.equal(200);
    const s = await settledAt(sink, before.totals.served + 20);
    expect(s.listener.connections - before.listener.connections).to.be.at.most(2);
    const threads = descendants(sink.child.pid!).flatMap(threadsOf);
    const idle = threads.filter((t) => t.policy === SCHED_IDLE);
    expect(idle, JSON.stringify(threads)).to.have.length(1);
    expect(idle[0]!.nice).to.equal(19);
    const main = threads.filter((t) => t.tid === t.pid && t.name === 'MainThread');
    expect(main.map((t) => t.policy)).to.include(SCHED_OTHER);
    expect(main.every((t) => t.policy === SCHED_OTHER && t.nice === 0)).to.equal(true);
  });

  it('a stuck sink (SIGSTOP) fails no client: on a kept connection nginx gives up on each mirror', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: nginx.certificate });
    process.kill(sink.child.pid!, 'SIGSTOP');
    try {
      for (let i = 0; i < 3; i++) {
        const res = await httpsRequest(nginx.httpsUrl + ECHO, { ca: nginx.certificate, agent });
        expect(res.status).to.equal(200);
        expect(JSON.parse(res.text).CompanyName).to.equal('Legacy Host');
      }
    } finally {
      process.kill(sink.child.pid!, 'SIGCONT');
      agent.destroy();
    }
    expect(readFileSync(join(nginx.dir, 'error.log'), 'utf8')).to.match(/upstream timed out .*_reporting_shadow/);
  });

  it('nginx sends the sink at most 100 mirrors a second (and a burst of 50), answering the others', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 20, ca: nginx.certificate });
    try {
      const before = (await figures(sink)).totals.served;
      const started = performance.now();
      const statuses = await Promise.all(
        Array.from({ length: 600 }, () => httpsRequest(nginx.httpsUrl + ECHO, { ca: nginx.certificate, agent })),
      );
      const seconds = (performance.now() - started) / 1000;
      expect(statuses.every((r) => r.status === 200)).to.equal(true);
      const received = (await settledAt(sink, before)).totals.served - before;
      // The site mirrors every request here (100%): the limit, not the sample, decides how many reach the sink.
      expect(received).to.be.above(0);
      expect(received, `${received} mirrors in ${seconds.toFixed(2)} s`).to.be.at.most(Math.ceil(100 * seconds) + 51);
    } finally {
      agent.destroy();
    }
  });

  it('its systemd unit verifies (systemd-analyze verify)', async function () {
    const verdict = await verifyUnit();
    if (verdict === undefined) this.skip();
    expect(verdict, 'systemd-analyze verify output').to.equal('');
  });

  it('a stopped sink never fails a client: nginx serves the old host and gives up on the mirror', async () => {
    expect(await sink.stop()).to.equal(0);
    expect(
      (JSON.parse(readFileSync(join(dir, 'shadow-report.json'), 'utf8')) as ShadowSnapshot).totals.served,
    ).to.be.above(0);
    for (let i = 0; i < 5; i++) {
      const res = await get(ECHO);
      expect(res.status).to.equal(200);
      expect(JSON.parse(res.text).CompanyName).to.equal('Legacy Host');
    }
  });
});

describe('what the shadow site sends the old host and the sink (recording hosts in their places)', function () {
  this.timeout(120_000);
  /** One request of each method, with the caller's credentials, an encoded path, repeated query names and a body. */
  const KINDS = [
    {
      method: 'GET',
      path: '/reporting/v1/echo/a%20b%2Fc?jsconfig=EmitCamelCaseNames:true&jsconfig=DateHandler:ISO8601&x=%C3%A9',
      headers: { 'X-ApiKey': 'caller-key', Accept: 'text/csv, */*;q=0.1' },
    },
    {
      method: 'POST',
      path: '/reporting/json/reply/EchoRequest?format=json',
      headers: { Authorization: 'Basic Y2FsbGVyOnNlY3JldA==', 'Content-Type': 'application/json; charset=utf-8' },
      body: '{"Message":"é ☃"}',
    },
    { method: 'HEAD', path: '/reporting/v1/echo/hello', headers: { Cookie: 'ss-id=caller-session' } },
    {
      method: 'PUT',
      path: '/reporting/v1/echo/put',
      headers: { 'X-ApiKey': 'caller-key', 'Content-Type': 'application/xml' },
      body: '<EchoRequest><Message>put</Message></EchoRequest>',
    },
    { method: 'DELETE', path: '/reporting/v1/echo/gone', headers: { Authorization: 'Bearer caller-token' } },
    { method: 'OPTIONS', path: '/reporting/v1/echo/hello', headers: { Origin: 'https://client.example' } },
  ] as const;
  let legacy: RecordingHost;
  let sinkHost: RecordingHost;
  /** nginx straight to the old host, every request in the sample, and the shipped 10%. */
  let direct: RunningNginx;
  let everything: RunningNginx;
  let shipped: RunningNginx;
  let probe = 0;
  const answers = new Map<number, HttpsAnswer>();
  const sentTo = new Map<RunningNginx, number>();

  /** A request of one kind through a site, named by the probe number at the end of its query. */
  async function send(site: RunningNginx, kind: (typeof KINDS)[number]): Promise<number> {
    const n = ++probe;
    sentTo.set(site, (sentTo.get(site) ?? 0) + 1);
    const url = `${site.httpsUrl}${kind.path}${kind.path.includes('?') ? '&' : '?'}probe=${n}`;
    const body = 'body' in kind ? kind.body : undefined;
    answers.set(n, await httpsRequest(url, { ca: site.certificate, method: kind.method, headers: kind.headers, body }));
    return n;
  }
  const probeOf = (url: string) => Number(/[?&]probe=(\d+)$/.exec(url)![1]);
  const recorded = (host: RecordingHost, n: number) => host.requests.find((r) => probeOf(r.url) === n);
  /** A request as the old host got it, its probe and the site's own port left out (its Host names the site). */
  function asSent(request: RecordedRequest | undefined, site: RunningNginx) {
    const port = new URL(site.httpsUrl).port;
    const strip = (text: string) => text.replaceAll(`:${port}`, ':<site>').replace(/[?&]probe=\d+$/, '');
    return request && { ...request, url: strip(request.url), rawHeaders: request.rawHeaders.map(strip), headers: {} };
  }
  function asAnswered(n: number, site: RunningNginx) {
    const { status, headers, text } = answers.get(n)!;
    return { status, location: String(headers.location).replace(new URL(site.httpsUrl).host, '<site>'), text };
  }
  /** The probes of the requests the access log shows ending in the sampled location, and of all, once all logged. */
  async function sampledByLog(site: RunningNginx): Promise<{ sampled: number[]; all: number[] }> {
    for (let waited = 0; ; waited += 50) {
      const lines = readFileSync(join(site.dir, 'access.log'), 'utf8').split('\n').filter(Boolean);
      if (lines.length >= sentTo.get(site)! || waited > 10_000) {
        const probeOfLine = (line: string) => Number(/[?&]probe=(\d+) HTTP/.exec(line)![1]);
        return {
          sampled: lines.filter((l) => l.endsWith(' /_reporting_sampled')).map(probeOfLine),
          all: lines.map(probeOfLine),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  /** Until the sink host has `count` requests (mirrors end after their client's answer), then a little longer. */
  async function sinkSettled(count: number): Promise<void> {
    for (let waited = 0; sinkHost.requests.length < count && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }

  before(async () => {
    // The old host answers with a link at its own upstream name, which nginx rewrites to the site's (proxy_redirect).
    legacy = await startRecordingHost({
      status: 200,
      headers: { 'Content-Type': 'text/plain', Location: 'http://reporting_legacy/reporting/elsewhere' },
      body: 'old answer',
    });
    sinkHost = await startRecordingHost({ status: 204 });
    const site = async (options: { sample?: string; noMirror?: boolean }) =>
      startShadowNginx({
        http: await freePort(),
        https: await freePort(),
        legacy: legacy.port,
        sink: sinkHost.port,
        ...options,
      });
    [direct, everything, shipped] = [await site({ noMirror: true }), await site({ sample: '100%' }), await site({})];
  });
  after(async () => {
    await Promise.all([direct, everything, shipped].filter(Boolean).map((n) => n.stop()));
    await Promise.all([legacy, sinkHost].filter(Boolean).map((h) => h.close()));
  });

  it('the old host is asked as by nginx straight to it, in the sample or not; the client gets its answer', async () => {
    for (const kind of KINDS) {
      const straight = await send(direct, kind);
      const inSample = await send(everything, kind);
      const outOfSample: number[] = [];
      for (let i = 0; i < 10; i++) outOfSample.push(await send(shipped, kind));
      const { sampled } = await sampledByLog(shipped);
      const unsampled = outOfSample.filter((n) => !sampled.includes(n));
      expect(unsampled, `${kind.method}: 10 requests, none out of the 10% sample`).not.to.be.empty;
      const expected = asSent(recorded(legacy, straight), direct);
      expect(expected?.method).to.equal(kind.method);
      expect(expected?.url).to.equal(kind.path);
      expect(asSent(recorded(legacy, inSample), everything), `${kind.method} in the sample`).to.deep.equal(expected);
      for (const n of unsampled)
        expect(asSent(recorded(legacy, n), shipped), `${kind.method} out of the sample`).to.deep.equal(expected);
      const answer = asAnswered(straight, direct);
      expect(answer.location).to.equal('https://<site>/reporting/elsewhere');
      for (const [n, site] of [[inSample, everything], ...unsampled.map((u) => [u, shipped] as const)] as const)
        expect(asAnswered(n, site), `${kind.method} answered through the shadow site`).to.deep.equal(answer);
    }
  });

  it('a sampled request reaches the sink as the old host got it: method, URI, headers, credentials, body', async () => {
    const probes = [];
    for (const kind of KINDS) probes.push(await send(everything, kind));
    await sinkSettled(probes.length);
    for (const n of probes) {
      const [old, mirrored] = [recorded(legacy, n), recorded(sinkHost, n)];
      expect(old, `probe ${n} at the old host`).not.to.equal(undefined);
      expect(mirrored, `${old!.method} mirrored as the old host got it`).to.deep.equal(old);
    }
  });

  it('out of the sample nginx makes no mirror: the sink gets just the sampled requests, about 1 in 10', async () => {
    const [from, sinkBefore] = [probe, sinkHost.requests.length];
    const sent: number[] = [];
    for (let i = 0; i < 200; i++) sent.push(await send(shipped, KINDS[0]));
    const { sampled, all } = await sampledByLog(shipped);
    const ours = (list: number[]) => list.filter((n) => n > from).sort((a, b) => a - b);
    expect(ours(all)).to.deep.equal(sent);
    await sinkSettled(sinkBefore + ours(sampled).length);
    const mirrored = ours(sinkHost.requests.map((r) => probeOf(r.url)));
    // The unsampled requests ended in the location that has no mirror; only the sampled ones reached the sink.
    expect(mirrored).to.deep.equal(ours(sampled));
    // Binomial(200, 0.1): 20 expected; outside 3..50 has a probability below one in a million.
    expect(mirrored.length).to.be.within(3, 50);
    expect(ours(legacy.requests.map((r) => probeOf(r.url)))).to.deep.equal(sent);
  });
});
