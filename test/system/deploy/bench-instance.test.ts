/**
 * The many-companies bench's instance (scripts/bench/many-companies-instance.ts) runs the production modules as
 * `npm start` runs them: compiled against dist/ (no module of src/ bundled or loaded, no tsx), and it runs (forked as
 * the bench forks it, over an empty DuckDB ledger).
 */
import { expect } from 'chai';
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../../scripts/bench/many-companies-instance.ts';
import { productionProgram } from '../../../scripts/bench/production-program.ts';
import { firstMessage } from '../../../scripts/bench/spawn-server.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';
import { withoutNodeOptions } from '../../../scripts/lib/server-process.ts';

const INSTANCE = path.join(REPO_ROOT, 'scripts/bench/many-companies-instance.ts');

describe('the many-companies bench instance', function () {
  this.timeout(180_000);
  let program: string;
  let scratch: string;
  before(async () => {
    program = await productionProgram(INSTANCE, 'instanceMain');
    scratch = mkdtempSync(path.join(tmpdir(), 'bench-instance-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('imports the service from dist/ only, not its TypeScript sources', () => {
    const text = readFileSync(program, 'utf8');
    const files = [...text.matchAll(/from "(file:[^"]+)"/g)].map((m) => path.relative(REPO_ROOT, fileURLToPath(m[1]!)));
    expect(files).to.include('dist/src/store/open-store.js');
    for (const file of files) expect(file).to.match(/^dist\/(src|generated)\/.*\.js$/);
    expect(text).not.to.match(/from "[^"]*\.ts"/);
    expect(text).not.to.include('tsx');
    expect(text).not.to.include('async function openStore');
  });

  it('runs as the bench forks it, without tsx', async () => {
    const options = {
      companies: 3,
      totalEntries: 100,
      largest: 50,
      indexMb: 1,
      requests: 20,
      seed: 7,
      store: 'duckdb',
    };
    const child = fork(
      program,
      [JSON.stringify({ duckdbPath: path.join(scratch, 'ledger.duckdb') }), JSON.stringify(options)],
      {
        execArgv: [],
        env: withoutNodeOptions(),
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    const result = await firstMessage<RunResult>(child, 'the instance', 120_000);
    expect(result.requests).to.equal(20);
    expect(result.stats.hits + result.stats.misses).to.equal(20);
    expect(result.peakRssMiB).to.be.greaterThan(0);
  });
});
