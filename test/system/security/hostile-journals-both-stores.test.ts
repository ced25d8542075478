/**
 * Red team round 4 (issue 36), finding 16: the same hostile journals on both stores got different answers: a line with
 * a cell of many megabytes (DuckDB refused it, PostgreSQL took it), a NUL byte (DuckDB took it, PostgreSQL's COPY
 * refused it with its own words), 20,005 columns (PostgreSQL's raw "tables can have at most 1600 columns", no line).
 * Now the compiled `npm run import` refuses each alike on the embedded store and on a real PostgreSQL: the same
 * sentence, naming the line, and nothing written.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { ensureProductionBuild, productionEnv, REPO_ROOT } from '../../../scripts/lib/server-process.ts';
import { SEVEN_CO_REFERENCE } from '../../fixtures/seven-co-reference.ts';

const run = promisify(execFile);
const HEADER = 'entry,date,location,account,amount,memo';
const row = (entry: string, memo = '') => [
  `${entry},2024-01-05,70,7400,-10.00,${memo}`,
  `${entry},2024-01-05,70,7000,10.00,`,
];
const HOSTILE: Record<string, { text: string; line: number }> = {
  'a 3 MB cell': { text: [HEADER, ...row('A1'), ...row('A2', 'm'.repeat(3_000_000))].join('\n'), line: 4 },
  'a NUL byte': { text: [HEADER, ...row('A1'), ...row('A2', 'nul\0here')].join('\n'), line: 4 },
  'a header of 20,005 columns': {
    text: [
      `${HEADER},${Array.from({ length: 19_999 }, (_, i) => `x${i}`).join(',')}`,
      ...row('A1', `${','.repeat(19_999)}`),
    ].join('\n'),
    line: 1,
  },
  'a row of 20,005 cells': { text: [HEADER, ...row('A1', `m${',x'.repeat(19_999)}`)].join('\n'), line: 2 },
  'a row of 5 cells': { text: [HEADER, ...row('A1'), 'A2,2024-01-05,70,7400'].join('\n'), line: 4 },
  // DuckDB's reader alone takes a row whose extra cells are all empty as if they were not there.
  'a row of 8 cells, the extra ones empty': { text: [HEADER, ...row('A1', 'm,,')].join('\n'), line: 2 },
  'a row of 7 cells, the extra one quoted empty': {
    text: [HEADER, ...row('A1'), `${row('A2')[0]},""`].join('\n'),
    line: 4,
  },
};

describe('both stores refuse the same hostile journals alike, naming the line (issue 36, finding 16)', function () {
  this.timeout(300_000);
  let dir: string;
  let pg: PostgresServer | undefined;
  before(async function () {
    if (skipPostgres) this.skip();
    await ensureProductionBuild();
    dir = mkdtempSync(join(tmpdir(), 'rs-hostile-journals-'));
    writeFileSync(join(dir, 'reference.csv'), SEVEN_CO_REFERENCE);
    for (const [name, { text }] of Object.entries(HOSTILE)) writeFileSync(join(dir, `${name}.csv`), `${text}\n`);
    pg = await startPostgresServer('hostile_journals');
  });
  after(async () => {
    await pg?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const importInto = (env: Record<string, string>, file: string) =>
    run(
      process.execPath,
      ['dist/scripts/import.js', file, '--reference', join(dir, 'reference.csv'), '--company', '7'],
      {
        cwd: REPO_ROOT,
        env: productionEnv(env),
        maxBuffer: 64 << 20,
      },
    ).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  for (const [name, { line }] of Object.entries(HOSTILE)) {
    it(`${name}: the same refusal at line ${line} on DuckDB and PostgreSQL, nothing written`, async () => {
      const file = join(dir, `${name}.csv`);
      const duck = await importInto({ DATA_DIR: join(dir, 'duckdb') }, file);
      const post = await importInto({ DATABASE_URL: pg!.url }, file);
      expect(post.code, post.out).to.equal(1);
      expect(duck.code, `${duck.out}\n---\n${post.out}`).to.equal(1);
      const sentence = (out: string) => out.split('\n').find((l) => l.includes(`line ${line}`));
      expect(sentence(duck.out), duck.out.slice(0, 2000)).to.be.a('string');
      expect(sentence(post.out), post.out.slice(0, 2000)).to.equal(sentence(duck.out));
      expect(duck.out).to.not.match(/loaded \d+ entries/);
      expect(post.out).to.not.match(/loaded \d+ entries/);
    });
  }
});
