/**
 * Red team round 4 (issue 36), finding 9: the embedded store's DATA_DIR was made 0755 and ledger.duckdb 0644, so any
 * local user could copy every entry, the API keys' hashes and the report-link secret. The production start now makes
 * the folder 0700 and the ledger 0600, and closes a folder and ledger made by an earlier version the same way.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureProductionBuild, startProductionServer } from '../../../scripts/lib/server-process.ts';
import { cli } from '../../support/npm-cli.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the data folder and ledger are private to the service user (issue 36, finding 9)', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-private-data-'));
    chmodSync(dir, 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function startAndStop(dataDir: string): Promise<void> {
    const server = await startProductionServer({ DATA_DIR: dataDir, DEMO_DATA: '1' });
    await server.waitForOutput(/Demo API key|ready/);
    expect((await fetch(`${server.url}/health`)).status).to.equal(200);
    expect(await server.stop()).to.equal(0);
  }

  it('a first start makes DATA_DIR 0700 and ledger.duckdb 0600', async () => {
    const dataDir = join(dir, 'fresh');
    await startAndStop(dataDir);
    expect(mode(dataDir)).to.equal(0o700);
    expect(mode(join(dataDir, 'ledger.duckdb'))).to.equal(0o600);
  });

  it(
    'in a shared sticky folder (as /tmp), which keeps its mode, the ledger and the write-ahead log DuckDB makes ' +
      'while the server runs are 0600',
    async () => {
      const shared = join(dir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const server = await startProductionServer({ DATA_DIR: shared, DEMO_DATA: '1' });
      try {
        await server.waitForOutput(/Demo API key for company 1/);
        const created = await cli('keys', ['create', '--company', '1'], { DATA_DIR: shared });
        expect(created.code, created.stderr).to.equal(0);
        const wal = join(shared, 'ledger.duckdb.wal');
        expect(existsSync(wal), 'the key is in the write-ahead log until a checkpoint').to.equal(true);
        expect(mode(wal)).to.equal(0o600);
        expect(mode(join(shared, 'ledger.duckdb'))).to.equal(0o600);
        expect(statSync(shared).mode & 0o7777).to.equal(0o1777);
      } finally {
        await server.stop();
      }
    },
  );

  it('a folder and ledger left readable by an earlier version are closed to others at the next start', async () => {
    const dataDir = join(dir, 'fresh');
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'ledger.duckdb'), 0o644);
    await startAndStop(dataDir);
    expect(mode(dataDir)).to.equal(0o700);
    expect(mode(join(dataDir, 'ledger.duckdb'))).to.equal(0o600);
  });
});
