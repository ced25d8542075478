/**
 * Red team round 3 (issue 25), finding 4: behind the shipped nginx + systemd pair, the client's `Host` header wrote
 * the links (report Url, the WSDL's address, /types/metadata, the / redirect): nginx passed it on as Host and
 * X-Forwarded-Host, which the instance believed (TRUST_PROXY=loopback). The shipped site now sends the configured
 * server_name (and port when not 443) instead. This runs the shipped files (deploy/nginx, the unit's command line and
 * environment, only ports and paths replaced) with a forged Host and X-Forwarded-Host on every request.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { request } from 'node:https';
import { startNginx, type RunningNginx } from '../../../scripts/lib/nginx.ts';
import { ensureProductionBuild, type ServerProcess } from '../../../scripts/lib/server-process.ts';
import { startUnitInstance } from '../../../scripts/lib/systemd-unit.ts';

const FORGED = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example:8443' };

describe('the shipped nginx + systemd pair ignores a forged Host (issue 25, finding 4)', function () {
  this.timeout(180_000);
  let dir: string;
  let instance: ServerProcess;
  let nginx: RunningNginx;
  let key: string;
  /** A request through nginx's TLS port (certificate checked for localhost) carrying the forged headers. */
  const viaNginx = (pathAndQuery: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
      (resolve, reject) => {
        const req = request(
          nginx.httpsUrl + pathAndQuery,
          { headers: { ...FORGED, ...headers }, ca: nginx.certificate, servername: 'localhost', agent: false },
          (res) => {
            let text = '';
            res
              .setEncoding('utf8')
              .on('data', (d: string) => (text += d))
              .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
          },
        );
        req.on('error', reject).end();
      },
    );

  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(path.join(tmpdir(), 'rs-host-'));
    const port = await freePort();
    instance = await startUnitInstance(port, { DATA_DIR: dir, DEMO_DATA: '1', LOG_LEVEL: 'warn' });
    await instance.waitForOutput(/Demo API key/);
    key = /Demo API key for company 1 \(shown once, stored hashed\): (rsk_\S+)/.exec(instance.output())![1]!;
    nginx = await startNginx({ http: await freePort(), https: await freePort(), upstreams: [port, port] });
  });
  after(async () => {
    await nginx?.stop();
    await instance?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the report Url', async () => {
    const res = await viaNginx('/reporting/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1', { 'X-ApiKey': key });
    expect(res.status).to.equal(200);
    expect(
      (JSON.parse(res.text) as { Url: string }).Url.startsWith(
        `${nginx.httpsUrl}/reporting/v1/Reporting/ProfitAndLoss/Flat/Reports/`,
      ),
    ).to.equal(true);
  });

  it("the WSDL's soap12:address", async () => {
    const res = await viaNginx('/reporting/soap12?wsdl');
    expect(res.status).to.equal(200);
    expect(res.text).to.contain(`<soap12:address location="${nginx.httpsUrl}/reporting/soap12"`);
    expect(res.text).to.not.contain('evil.example');
  });

  it("/types/metadata's BaseUrl and the / redirect", async () => {
    const metadata = await viaNginx('/reporting/types/metadata');
    expect(metadata.status).to.equal(200);
    expect(metadata.text).to.contain(`${nginx.httpsUrl}/reporting`).and.not.contain('evil.example');
    const root = await viaNginx('/reporting/');
    expect(root.status).to.equal(302);
    expect(root.headers.location).to.equal(`${nginx.httpsUrl}/reporting/metadata`);
  });

  it('the HTTP → HTTPS redirect names the configured server, not the client Host', async () => {
    const res = await fetch(`${nginx.httpUrl}/reporting/v1/echo/hi`, {
      redirect: 'manual',
      headers: { Host: 'evil.example' },
    }).catch(() => undefined);
    // fetch may refuse to send a Host header of its own choosing; the redirect is then checked without it.
    const answer = res ?? (await fetch(`${nginx.httpUrl}/reporting/v1/echo/hi`, { redirect: 'manual' }));
    expect(answer.headers.get('location')).to.equal('https://127.0.0.1/reporting/v1/echo/hi');
  });
});
