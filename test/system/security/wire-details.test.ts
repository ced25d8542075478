/**
 * Red team round 4 (issue 36), findings 15 and 17, against the production process under BASE_PATH=/reporting:
 * an XML body's numeric character references were left as they were sent (`caf&#233; &#x41;`, which a .NET host
 * reads as `café A`), and the HTML snapshot's heading linked `/metadata`, outside the base path.
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

const TYPES = 'http://schemas.servicestack.net/types';

describe('wire details under BASE_PATH=/reporting (issue 36, findings 15 and 17)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: ServerProcess;
  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-wire-details-'));
    server = await startProductionServer({ DATA_DIR: dir, DEMO_DATA: '0', BASE_PATH: '/reporting' });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const postXml = (message: string) =>
    fetch(`${server.url}/xml/reply/EchoRequest?format=json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
      body: `<EchoRequest xmlns="${TYPES}"><Message>${message}</Message></EchoRequest>`,
    });

  it('an XML body decodes numeric character references, decimal and hexadecimal, beside the named ones', async () => {
    for (const [sent, read] of [
      ['caf&#233; &#x41;', 'café A'],
      ['&#x1F600; &#128512;', '😀 😀'],
      ['a &amp; b &lt;c&gt; &quot;&apos;', 'a & b <c> "\''],
    ]) {
      const res = await postXml(sent!);
      expect(res.status, sent).to.equal(200);
      expect(((await res.json()) as { Message: string }).Message, sent).to.equal(read);
    }
  });

  it('an XML body with &#0; (no XML character) is a 400 naming the body, not a NUL in the value', async () => {
    const res = await postXml('a&#0;b');
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { ResponseStatus: { ErrorCode: string; Message: string } };
    expect(body.ResponseStatus.Message).to.contain('&#0;');
  });

  it("the HTML snapshot's heading links the metadata page under the base path, which answers", async () => {
    const page = await fetch(`${server.url}/v1/echo/hi.html`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    const heading = /<h1>.*<\/h1>/.exec(html)![0];
    expect(heading).to.contain('href="/reporting/metadata"');
    expect(html).to.not.match(/href="\/metadata"/);
    expect((await fetch(new URL('/reporting/metadata', server.url))).status).to.equal(200);
  });
});
