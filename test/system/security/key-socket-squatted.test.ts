/**
 * Red team round 4 (issue 36), finding 12: with a DATA_DIR too long for a Unix socket path, the key socket lives in a
 * directory of the temp dir named by a hash of DATA_DIR; another local user who made that directory first left the
 * server without a key socket until a restart (refused safely, but `npm run keys` and imports failed). Now the server
 * and the CLI both pass over a directory that is not this user's private one, to `~/.cache` (only this user writes
 * there): the keys CLI reaches the running server.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  ensureProductionBuild,
  productionEnv,
  REPO_ROOT,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);
const NOBODY = 65534;

describe('a key socket directory made first by another user (issue 36, finding 12)', function () {
  this.timeout(180_000);
  let dir: string;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    await ensureProductionBuild();
    // A short private temp dir and home, so the socket paths stay short and nothing outside the test is touched.
    dir = mkdtempSync('/tmp/rs-ksq-');
    const temp = join(dir, 't');
    const home = join(dir, 'h');
    mkdirSync(temp);
    mkdirSync(home);
    const dataDir = join(dir, 'a-data-directory-whose-path-is-long-enough'.repeat(2));
    mkdirSync(dataDir);
    env = { DATA_DIR: dataDir, TMPDIR: temp, HOME: home };
    // Another user's directory where the server would put its socket: theirs, open to all.
    const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
    const squatted = join(temp, `reporting-service-keys-${hash}`);
    mkdirSync(squatted);
    chmodSync(squatted, 0o777);
    if (userInfo().uid === 0) chownSync(squatted, NOBODY, NOBODY);
    server = await startProductionServer({ ...env, DEMO_DATA: '1' });
    await server.waitForOutput(/Demo API key/);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the server listens in ~/.cache instead, 0700, and `keys list` and `keys create` reach it', async () => {
    expect(server!.output()).to.not.contain('no key administration socket');
    const keys = (...args: string[]) =>
      run(process.execPath, ['dist/scripts/keys.js', ...args], { cwd: REPO_ROOT, env: productionEnv(env) });
    const listed = await keys('list');
    expect(listed.stdout).to.match(/^1\tdemo\tcompanies 1\t/m);
    const created = await keys('create', '--company', '1', '--name', 'after-squat');
    expect(created.stdout).to.match(/key \(shown once, stored hashed\): rsk_/);
    const cache = join(env.HOME!, '.cache');
    const [socketDir] = readdirSync(cache).filter((d) => d.startsWith('reporting-service-keys-'));
    expect(statSync(join(cache, socketDir!)).mode & 0o777).to.equal(0o700);
    expect(readdirSync(join(cache, socketDir!))).to.deep.equal(['keys.sock']);
    expect(dirname(join(cache, socketDir!, 'keys.sock')).length).to.be.below(100);
  });
});
