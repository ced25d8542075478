/**
 * The deployment as shipped: nginx running deploy/nginx/reporting-service.conf (TLS, /reporting/) in front of two
 * instances started with deploy/systemd/reporting-service@.service's ExecStart (the production build), sharing one
 * real PostgreSQL; the ledger and the keys come from the compiled CLIs (dist/scripts/import.js, keys.js) while
 * the instances serve. Requests alternate; a report link minted by one opens on the other; CLI keys work on both; an
 * import while both serve shows each reader the old or the new report, never a mix; an instance killed mid-load
 * loses no request.
 * Depends on issue 15 (finding 5: a PostgreSQL report reads one snapshot) for the import test to hold every time.
 */
import { expect } from 'chai';
import autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { PRODUCTION_ENV, PRODUCTION_NODE_ARGS } from '../../../scripts/lib/production-start.ts';
import { httpsRequest } from '../../support/https-client.ts';
import { startNginx, type RunningNginx } from '../../../scripts/lib/nginx.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { REPO_ROOT, ensureProductionBuild, type ServerProcess } from '../../../scripts/lib/server-process.ts';
import { startUnitInstance, verifyUnit } from '../../../scripts/lib/systemd-unit.ts';

const run = promisify(execFile);
const REPORT =
  '/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&' +
  'EndDate=2024-06-30&IncludeComputedColumns=true';

const REFERENCE = `kind,id,company_id,name,type,number,base_currency,time_zone
company,1,,Two Instance Co,,,USD,UTC
location,10,1,Harbour,,,,
location,11,1,Station,,,,
account,1000,1,Cash,Bank,1000,,
account,4000,1,Sales,Income,4000,,
account,5000,1,Food Cost,COGS,5000,,
account,6000,1,Rent,Expense,6000,,
`;
/** The later import adds an account: a report mixing catalogs or sums from before and after would show it. */
const REFERENCE_2 = `kind,id,company_id,name,type,number
account,4100,1,Catering,Income,4100
`;

/** The report without its BuildTime (milliseconds spent, different on every call). */
function figures(responseText: string): string {
  const { ReportModel } = JSON.parse(responseText) as { ReportModel: Record<string, unknown> };
  const { BuildTime: _time, ...rest } = ReportModel;
  return JSON.stringify(rest);
}

function journal(
  prefix: string,
  days: number,
  rows: (day: string, i: number) => [account: number, cents: number][],
): string {
  const lines = ['entry,date,location,account,amount'];
  for (let i = 0; i < days; i++) {
    const day = new Date(Date.UTC(2024, 0, 1 + (i % 182))).toISOString().slice(0, 10);
    const legs = rows(day, i);
    const balance = -legs.reduce((sum, [, cents]) => sum + cents, 0);
    for (const [account, cents] of [...legs, [1000, balance] as [number, number]]) {
      lines.push(`${prefix}${i},${day},${10 + (i % 2)},${account},${(cents / 100).toFixed(2)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

describe('deployment: nginx (deploy/) in front of two instances (systemd unit) over one PostgreSQL', function () {
  this.timeout(300_000);
  let pg: PostgresServer;
  let dir: string;
  let nginx: RunningNginx;
  let ports: [number, number];
  let instances: ServerProcess[] = [];
  let key: string;
  let envFile: Record<string, string>;
  const cli = (...args: string[]) =>
    run(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH, ...envFile } });
  const viaNginx = (pathAndQuery: string, headers: Record<string, string> = {}, localAddress?: string) =>
    httpsRequest(nginx.httpsUrl + pathAndQuery, { ca: nginx.certificate, headers, localAddress });
  /** Which instance logged the request with this X-Request-Id (index into `instances`), waiting for its access line. */
  const servedBy = async (requestId: string): Promise<number> => {
    for (let waited = 0; waited < 5000; waited += 20) {
      const owner = instances.findIndex((p) => p.output().includes(`"reqId":"${requestId}"`));
      if (owner !== -1) return owner;
      await new Promise((r) => setTimeout(r, 20));
    }
    return -1;
  };

  before(async function () {
    if (skipPostgres) this.skip();
    await ensureProductionBuild();
    pg = await startPostgresServer('reporting');
    dir = mkdtempSync(path.join(tmpdir(), 'rs-two-'));
    envFile = { DATABASE_URL: pg.url, LOG_LEVEL: 'info' };
    writeFileSync(path.join(dir, 'reference.csv'), REFERENCE);
    writeFileSync(
      path.join(dir, 'journal.csv'),
      journal('A', 182, (_d, i) => [
        [4000, -(50_000 + i * 100)],
        [5000, 12_000],
        ...(i % 30 === 0 ? [[6000, 250_000] as [number, number]] : []),
      ]),
    );
    writeFileSync(path.join(dir, 'reference-2.csv'), REFERENCE_2);
    writeFileSync(
      path.join(dir, 'journal-2.csv'),
      journal('B', 4000, (_d, i) => [
        [4000, -(1_000 + i)],
        [4100, -7_500],
        [5000, 3_000],
      ]),
    );
    await cli('dist/scripts/import.js', path.join(dir, 'journal.csv'), '--reference', path.join(dir, 'reference.csv'));
    key = /key \(shown once, stored hashed\): (\S+)/.exec(
      (await cli('dist/scripts/keys.js', 'create', '--company', '1', '--name', 'nginx-test')).stdout,
    )![1]!;
    ports = [await freePort(), await freePort()];
    instances = await Promise.all(ports.map((port) => startUnitInstance(port, envFile)));
    nginx = await startNginx({ http: await freePort(), https: await freePort(), upstreams: ports });
  });

  after(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((p) => p.stop()));
    await pg?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'the systemd unit verifies (systemd-analyze verify), and its instances are up from the production ' + 'build',
    async () => {
      const verdict = await verifyUnit(String(ports[0]));
      if (verdict !== undefined) expect(verdict, 'systemd-analyze verify output').to.equal('');
      for (const [i, p] of instances.entries()) expect(p.url).to.equal(`http://127.0.0.1:${ports[i]}/reporting`);
    },
  );

  // The unit starts the server as npm start does: a process of the unit that lacked npm start's allocator setting kept
  // freed index memory (docs/scaling.md, "Where the memory goes").
  it("each instance runs with npm start's node options and the variables npm start sets", () => {
    for (const instance of instances) {
      const pid = instance.child.pid!;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1);
      expect(argv).to.deep.equal(PRODUCTION_NODE_ARGS);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(Object.keys(PRODUCTION_ENV)).to.not.be.empty;
      for (const [name, value] of Object.entries(PRODUCTION_ENV)) expect(environ).to.include(`${name}=${value}`);
    }
  });

  // Issue 36, finding 13: the unit left METRICS=public, so anyone reaching the site read /reporting/metrics.
  it('/reporting/metrics through nginx needs an API key (the unit sets METRICS=key)', async () => {
    for (let i = 0; i < 2; i++) {
      const anonymous = await viaNginx('/reporting/metrics');
      expect(anonymous.status, anonymous.text).to.equal(401);
      expect(anonymous.text).to.not.contain('http_requests_total');
      const withKey = await viaNginx('/reporting/metrics', { 'X-ApiKey': key });
      expect(withKey.status).to.equal(200);
      expect(withKey.text).to.contain('http_requests_total');
    }
  });

  it("HTTP redirects to HTTPS; requests alternate between the instances; each logs the client's address", async () => {
    const redirect = await fetch(`${nginx.httpUrl}/reporting/v1/echo/hi`, { redirect: 'manual' });
    expect(redirect.status).to.equal(301);
    // The standard port, 443.
    expect(redirect.headers.get('location')).to.equal('https://127.0.0.1/reporting/v1/echo/hi');
    const owners: number[] = [];
    for (let i = 0; i < 8; i++) {
      const id = `alternate-${i}-${Date.now()}`;
      // From 127.0.0.2, claiming another address: nginx sets X-Forwarded-For to the real one.
      const res = await viaNginx(
        '/reporting/v1/echo/hi',
        { 'X-Request-Id': id, 'X-Forwarded-For': '198.51.100.1' },
        '127.0.0.2',
      );
      expect(res.status).to.equal(200);
      expect(JSON.parse(res.text)).to.deep.equal({
        Message: 'hi',
        CompanyName: 'Reporting Service',
        ResponseStatus: {},
      });
      owners.push(await servedBy(id));
      expect(owners.at(-1), `an instance logged ${id}`).to.not.equal(-1);
      const line = instances[owners.at(-1)!]!.output()
        .split('\n')
        .find((l) => l.includes(`"reqId":"${id}"`))!;
      expect(JSON.parse(line).req.remoteAddress, line).to.equal('127.0.0.2');
    }
    expect(owners).to.not.include(-1);
    for (let i = 1; i < owners.length; i++)
      expect(owners[i], `request ${i} went to the other instance`).to.not.equal(owners[i - 1]);
  });

  it(
    'a report link minted by one instance opens on the other; links and the WSDL name the public https ' + 'address',
    async () => {
      const id = `mint-${Date.now()}`;
      const minted = await viaNginx(REPORT, { 'X-ApiKey': key, 'X-Request-Id': id });
      expect(minted.status, minted.text).to.equal(200);
      const report = JSON.parse(minted.text) as { Url: string };
      expect(report.Url).to.match(
        new RegExp(
          `^${nginx.httpsUrl.replace(/\./g, '\\.')}/reporting/v1/Reporting/ProfitAndLoss/Flat/Reports/` +
            `[\\w-]+\\.[\\w-]+$`,
        ),
      );
      const minter = await servedBy(id);
      expect(minter).to.be.oneOf([0, 1]);
      const other = instances[1 - minter]!;
      const direct = await fetch(`http://127.0.0.1:${ports[1 - minter]}${new URL(report.Url).pathname}.json`, {
        headers: { 'X-ApiKey': key, 'X-Request-Id': `${id}-opened` },
      });
      expect(direct.status).to.equal(200);
      expect(figures(await direct.text())).to.equal(figures(minted.text));
      expect(await servedBy(`${id}-opened`)).to.equal(1 - minter);
      expect(other.output()).to.contain(new URL(report.Url).pathname);
      for (let i = 0; i < 2; i++) {
        const page = await viaNginx(`${new URL(report.Url).pathname}.html`, { 'X-ApiKey': key });
        expect(page.status).to.equal(200);
        expect(page.text).to.contain('<script src="/reporting/assets/report-page.js"></script>');
      }
      const wsdl = await viaNginx('/reporting/soap12?wsdl');
      expect(wsdl.text).to.contain(`<soap12:address location="${nginx.httpsUrl}/reporting/soap12"`);
    },
  );

  it('keys made and revoked with the CLI while both serve take effect on both', async () => {
    const made = await cli('dist/scripts/keys.js', 'create', '--company', '1', '--name', 'while-serving');
    const fresh = /key \(shown once, stored hashed\): (\S+)/.exec(made.stdout)![1]!;
    const id = /created key (\d+)/.exec(made.stdout)![1]!;
    const status = (port: number, k: string) =>
      fetch(`http://127.0.0.1:${port}${REPORT}`, { headers: { 'X-ApiKey': k } }).then((r) => r.status);
    for (const port of ports) {
      expect(await status(port, key), `first CLI key on ${port}`).to.equal(200);
      expect(await status(port, fresh), `new CLI key on ${port}`).to.equal(200);
    }
    await cli('dist/scripts/keys.js', 'revoke', id);
    for (const port of ports) expect(await status(port, fresh), `revoked key on ${port}`).to.equal(401);
  });

  it('an import while both serve: every reader sees the old or the new report, never a mix', async () => {
    const read = async () => {
      const res = await viaNginx(REPORT, { 'X-ApiKey': key });
      expect(res.status, res.text).to.equal(200);
      return figures(res.text);
    };
    const before = await read();
    const seen: string[] = [];
    let importing = true;
    const readers = Array.from({ length: 6 }, async () => {
      while (importing) seen.push(await read());
    });
    const started = Date.now();
    await cli(
      'dist/scripts/import.js',
      path.join(dir, 'journal-2.csv'),
      '--reference',
      path.join(dir, 'reference-2.csv'),
      '--append',
    );
    await new Promise((r) => setTimeout(r, Math.max(300, (Date.now() - started) / 4)));
    importing = false;
    await Promise.all(readers);
    const after = await read();
    expect(after).to.not.equal(before);
    expect(after).to.contain('Catering');
    const mixed = seen.filter((s) => s !== before && s !== after);
    expect(
      mixed.length,
      `${mixed.length} of ${seen.length} reads were neither the old nor the new report, ` +
        `e.g. ${mixed[0]?.slice(0, 400)}`,
    ).to.equal(0);
    expect(seen).to.include(after);
  });

  it(
    'the conformance kit (compiled CLI) passes against the deployment, over TLS, under /reporting, across both ' +
      'instances',
    async () => {
      const result = await run(
        process.execPath,
        ['dist/scripts/conformance.js', `${nginx.httpsUrl}/reporting`, '--api-key', key, '--company', '1'],
        {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: path.join(nginx.dir, 'cert.pem') },
          maxBuffer: 16 << 20,
        },
      ).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect('code' in result ? result.code : 0, `${result.stdout}\n${result.stderr}`).to.equal(0);
      const summary = /(\d+) pass, (\d+) fail, (\d+) n\/a/.exec(result.stdout);
      expect(summary, result.stdout).to.not.equal(null);
      expect(Number(summary![2]), result.stdout).to.equal(0);
      expect(Number(summary![1])).to.be.greaterThan(20);
    },
  );

  it('one instance killed mid-load: the other keeps answering and no request is lost', async () => {
    const victim = instances[1]!;
    const statuses: Record<string, number> = {};
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const load = autocannon(
        { url: nginx.httpsUrl + REPORT, headers: { 'X-ApiKey': key }, connections: 16, duration: 6 },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      load.on('response', (_c: unknown, statusCode: number) => {
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      });
      setTimeout(() => void victim.kill(), 2000);
    });
    expect(await victim.exited).to.equal(null); // SIGKILL: no exit code
    expect(statuses, JSON.stringify(statuses)).to.have.keys('200');
    expect(
      result.errors + result.timeouts + result.non2xx,
      JSON.stringify({ errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx }),
    ).to.equal(0);
    expect(result.requests.total).to.be.greaterThan(0);
    const alive = await fetch(`http://127.0.0.1:${ports[0]}${REPORT}`, { headers: { 'X-ApiKey': key } });
    expect(alive.status).to.equal(200);
  });
});
