/**
 * Red team round 4 (issue 36), finding 5: `npm start` kept Node's module compile cache in the shared temp directory
 * (`$TMPDIR/node-compile-cache`), which any local user can create first and fill: V8 checks only a source's length,
 * so a planted entry ran as the service's user. The production start now keeps it in a directory only its user can
 * write, and uses none when that directory is someone else's.
 */
import { expect } from 'chai';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ensureProductionBuild, startProductionServer } from '../../../scripts/lib/server-process.ts';

const NOBODY = 65534;
/** A directory as another local user would make it: theirs (when the test runs as root), open to everyone. */
function plantForeignDirectory(path: string): void {
  mkdirSync(path);
  chmodSync(path, 0o777);
  if (userInfo().uid === 0) chownSync(path, NOBODY, NOBODY);
}
const entries = (path: string) => readdirSync(path, { recursive: true });

describe('the compile cache is private to the service user (issue 36, finding 5)', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-compile-cache-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function startAndStop(temp: string): Promise<string> {
    const server = await startProductionServer({ TMPDIR: temp, DATA_DIR: join(temp, 'data'), DEMO_DATA: '0' });
    expect((await fetch(`${server.url}/health`)).status).to.equal(200);
    expect(await server.stop()).to.equal(0);
    return server.output();
  }

  it("another user's $TMPDIR/node-compile-cache is untouched; the cache is in a 0700 directory", async () => {
    const temp = join(dir, 'shared');
    mkdirSync(temp);
    plantForeignDirectory(join(temp, 'node-compile-cache'));
    await startAndStop(temp);
    expect(entries(join(temp, 'node-compile-cache'))).to.deep.equal([]);
    const own = join(temp, `reporting-service-compile-cache-${process.getuid!()}`);
    expect(statSync(own).mode & 0o777).to.equal(0o700);
    expect(statSync(own).uid).to.equal(process.getuid!());
    expect(entries(own)).to.not.be.empty;
  });

  it('a cache directory of that name made by another user first is not used: no cache, a warning', async () => {
    const temp = join(dir, 'taken');
    mkdirSync(temp);
    const taken = join(temp, `reporting-service-compile-cache-${process.getuid!()}`);
    plantForeignDirectory(taken);
    const output = await startAndStop(temp);
    expect(entries(taken)).to.deep.equal([]);
    expect(existsSync(join(temp, 'node-compile-cache'))).to.equal(false);
    expect(output).to.contain('no module compile cache');
  });
});
