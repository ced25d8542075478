/**
 * Red team round 4 (issue 36), finding 10: ServiceStack's session and token query names (`?ss-tok=<jwt>`, `ss-id`,
 * `ss-pid`, `jwt`, `sid`, `pwd`) were kept verbatim in the production process's access log. Now their values are
 * `[redacted]` as an API key's are; the rest of the URL is kept as sent.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureProductionBuild,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const SECRETS: Record<string, string> = {
  'ss-tok': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA',
  'ss-id': 'SessionIdSecretA1',
  'SS-PID': 'PermanentSessionSecretB2',
  jwt: 'JwtSecretD4',
  sid: 'SidSecretE5',
  pwd: 'PasswordSecretF6',
  password: 'PasswordSecretG7',
  refreshToken: 'RefreshSecretH8',
};

describe('secret query names are redacted in the access log (issue 36, finding 10)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: ServerProcess;
  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-secret-names-'));
    server = await startProductionServer({ DATA_DIR: dir, DEMO_DATA: '0', LOG_FORMAT: 'json' });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('?ss-tok=, ss-id, ss-pid, jwt, sid, pwd and password values never reach the log; the rest is kept', async () => {
    const query = Object.entries(SECRETS)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    const id = `secret-names-${Date.now()}`;
    const res = await fetch(`${server.url}/v1/echo/hi?${query}&callback=show&format=json`, {
      headers: { 'X-Request-Id': id },
    });
    expect(res.status).to.equal(200);
    await server.waitForOutput(new RegExp(`"reqId":"${id}"`));
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(id))!;
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(line, name).to.not.contain(value);
      expect(line, name).to.not.contain(encodeURIComponent(value));
      expect(line).to.contain(`${name}=[redacted]`);
    }
    expect(line).to.contain('/v1/echo/hi?');
    expect(line).to.contain('&callback=show&format=json');
  });
});
