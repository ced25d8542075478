/**
 * Every import path reports alike, and no import changes existing data without saying so (issue 39, goals 1-3):
 * `npm run import` straight into DuckDB, through a running server's keys.sock, and into PostgreSQL with a server
 * running on it. Real commands: the production server, the CLIs as `npm run` runs them, a pseudo-terminal from
 * util-linux's `script` where the terminal matters (the question, the progress bar).
 * - the summary gives each company's span and a curl line at the URL where the server really answers (its port,
 *   BASE_PATH or PUBLIC_BASE_URL, asked through keys.sock), and that URL's report shows the imported figures;
 * - renames and entries added to a company that has some are listed; without a terminal the import refuses in one
 *   sentence naming the flags and writes nothing; on a terminal it asks; the flags let it go on;
 * - the worked example of scripts/import-format.md imports onto the demo ledger without changing it;
 * - `npm run keys -- create` prints a curl line whose range covers the company's figures;
 * - a busy port's message suggests a port that is free.
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { skipPostgres, startPostgresServer } from '../../../scripts/lib/postgres-server.ts';
import {
  ensureProductionBuild,
  productionEnv,
  REPO_ROOT,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';
import { cli, type Outcome } from '../../support/npm-cli.ts';

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g;

/** The import CLI on a pseudo-terminal (util-linux `script`), `typed` sent to it as keystrokes; all it showed. */
function importOnTerminal(args: string[], env: Record<string, string>, typed: string): Promise<Outcome> {
  const quoted = ['--import', 'tsx', 'scripts/import.ts', ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', `${process.execPath} ${quoted}`, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: '', DEBUG: '', ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.end(typed);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout: out.replace(ANSI, ''), stderr: '' }));
  });
}

/** The worked example of scripts/import-format.md: its journal, then its reference file. */
function workedExample(dir: string): { journal: string; reference: string } {
  const blocks = [
    ...readFileSync(path.join(REPO_ROOT, 'scripts/import-format.md'), 'utf8').matchAll(/```csv\n([^`]*)```/g),
  ];
  const [journal, reference] = blocks.map((b) => b[1]!);
  writeFileSync(path.join(dir, 'example-journal.csv'), journal!);
  writeFileSync(path.join(dir, 'example-reference.csv'), reference!);
  return { journal: path.join(dir, 'example-journal.csv'), reference: path.join(dir, 'example-reference.csv') };
}

/** The query of a report over the worked example's span. */
const SPAN_7 =
  'CompanyId=7&UseCustomDateRange=true&StartDate=2024-01-05&EndDate=2024-01-20&IncludeComputedColumns=true';
const RENAME = 'kind,id,company_id,name,time_zone\ncompany,1,,Renamed Bistro Group,America/New_York\n';
/** One more demo entry on a day of the demo's range. */
const MORE = 'entry,date,location,account,amount\nX1,2025-02-03,101,4000,-12.34\nX1,2025-02-03,101,1000,12.34\n';
const REFUSAL =
  'Nothing was written: this import changes existing data (listed above); ' +
  'to go on, run it again with --update-reference --append.';

async function json(
  url: string,
  key: string,
): Promise<{ ReportModel: { Rows: { RowName: string; Values: number[] }[] } }> {
  const res = await fetch(url, { headers: { 'X-ApiKey': key } });
  expect(res.status, url).to.equal(200);
  return (await res.json()) as never;
}

async function echoName(url: string, key: string): Promise<string> {
  return (
    (await (await fetch(`${url}/v1/echo/hi`, { headers: { 'X-ApiKey': key } })).json()) as { CompanyName: string }
  ).CompanyName;
}

describe('import reporting: every path alike, no silent change, URLs that work', function () {
  this.timeout(300_000);
  let dir: string;
  const running: ServerProcess[] = [];
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'import-reporting-'));
    writeFileSync(path.join(dir, 'rename.csv'), RENAME);
    writeFileSync(path.join(dir, 'more.csv'), MORE);
    await ensureProductionBuild();
  });
  /** What a test started besides servers (a PostgreSQL server), stopped after them. */
  const stopAfter: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop();
    for (const stop of stopAfter.splice(0)) await stop();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'When the worked example is imported straight into DuckDB, then the summary gives its span and a curl ' +
      'line at the configured port',
    async () => {
      const example = workedExample(dir);
      const env = { DATA_DIR: path.join(dir, 'direct'), PORT: '18123', BASE_PATH: '/reporting' };
      const imported = await cli('import', [example.journal, '--reference', example.reference], env);
      expect(imported.code, imported.stderr).to.equal(0);
      expect(imported.stderr).not.to.include('changes data');
      const lines = imported.stdout.split('\n');
      expect(lines[0]).to.match(/^loaded 2 entries into the duckdb store in \d+ ms$/);
      expect(lines[1]).to.match(
        /^Company 7 \(Worked Example Co\): figures from 2024-01-05 to 2024-01-20 \(all before this year/,
      );
      expect(lines[2]).to.equal(
        "  curl -H 'X-ApiKey: <your key>' 'http://127.0.0.1:18123/reporting/v1/Reporting/ProfitAndLoss/Flat?" +
          "CompanyId=7&UseCustomDateRange=true&StartDate=2024-01-05&EndDate=2024-01-20&IncludeComputedColumns=true'",
      );
      expect(lines[3]).to.equal('  a key for it: npm run keys -- create --company 7');

      // Again: its entries would be added to company 7's, which is said and refused without a terminal.
      const again = await cli('import', [example.journal, '--reference', example.reference, '--company', '7'], env);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.include(
        '  - company 7 already has entries (figures from 2024-01-05 to 2024-01-20): the journal',
      );
      expect(again.stderr.trim().split('\n').at(-1)).to.equal(
        'Nothing was written: this import changes existing data (listed above); to go on, run it again with --append.',
      );
    },
  );

  it(
    'When a running server holds the store, then the import asks on a terminal, draws a progress bar and ' +
      'prints the public URL; without a terminal it refuses and writes nothing',
    async () => {
      const data = path.join(dir, 'served');
      const publicBase = 'https://reports.example.test/reporting';
      const server = await startProductionServer({
        DATA_DIR: data,
        BASE_PATH: '/reporting',
        PUBLIC_BASE_URL: publicBase,
      });
      running.push(server);
      await server.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): (\S+)\n/);
      const key = /Demo API key for company 1 \(shown once, stored hashed\): (\S+)\n/.exec(server.output())![1]!;
      expect(server.output()).to.match(
        new RegExp(
          "as a spreadsheet \\(or \\.csv\\): curl -H 'X-ApiKey: \\S+' -o report\\.xlsx " +
            "'https://reports\\.example\\.test/reporting/v1/Reporting/ProfitAndLoss/Flat/Reports/[^']+\\.xlsx'",
        ),
      );
      const args = [path.join(dir, 'more.csv'), '--reference', path.join(dir, 'rename.csv')];
      const env = { DATA_DIR: data };

      // The README's worked example goes onto the demo ledger without a question: its ids are its own.
      const example = workedExample(dir);
      const onDemo = await cli('import', [example.journal, '--reference', example.reference], env);
      expect(onDemo.code, onDemo.stderr).to.equal(0);
      expect(onDemo.stderr).not.to.include('changes data');
      expect(await echoName(server.url, key)).to.equal('Harbor Bistro Group');

      const refused = await cli('import', args, env);
      expect(refused.code).to.equal(1);
      expect(refused.stderr, refused.stderr).to.include(
        '  - company 1: name "Harbor Bistro Group" → "Renamed Bistro Group"\n',
      );
      expect(refused.stderr).to.match(
        / {2}- company 1 already has entries \(figures from 2024-01-01 to \d{4}-\d\d-\d\d\)/,
      );
      expect(refused.stderr.trim().split('\n').at(-1)).to.equal(REFUSAL);
      expect(await echoName(server.url, key), 'nothing written').to.equal('Harbor Bistro Group');

      const declined = await importOnTerminal(args, env, 'n\n');
      expect(declined.stdout).to.include('Go on with these changes? [y/N]');
      expect(declined.code).to.equal(1);
      expect(await echoName(server.url, key), 'nothing written').to.equal('Harbor Bistro Group');

      const accepted = await importOnTerminal(args, env, 'y\n');
      expect(accepted.code, accepted.stdout).to.equal(0);
      expect(accepted.stdout).to.match(/import 0\.0 MB \[[^\]]+\] step 5\/5: writing the ledger/);
      expect(accepted.stdout).to.match(/loaded 1 entries into the running server's duckdb store in \d+ ms/);
      expect(accepted.stdout).to.match(
        new RegExp(
          'Company 1 \\(Renamed Bistro Group\\): figures from 2024-01-01 to \\d{4}-\\d\\d-\\d\\d\\.\\r?\\n {2}' +
            "curl -H 'X-ApiKey: <your key>' " +
            "'https://reports\\.example\\.test/reporting/v1/Reporting/ProfitAndLoss/Flat" +
            '\\?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=',
        ),
      );
      expect(await echoName(server.url, key), 'the new name at once').to.equal('Renamed Bistro Group');

      // With the flags, no question: the changes are listed as allowed.
      writeFileSync(path.join(dir, 'more2.csv'), MORE.replace(/X1/g, 'X2'));
      const flagged = await cli(
        'import',
        [path.join(dir, 'more2.csv'), '--company', '1', '--update-reference', '--append'],
        env,
      );
      expect(flagged.code, flagged.stderr).to.equal(0);
      expect(flagged.stderr).to.match(/the journal's entries are added to them \(allowed by --append\)/);
    },
  );

  it(
    'When the import goes straight into DuckDB on a terminal, then it asks about the changes, draws the bar ' +
      'and reports',
    async () => {
      const env = { DATA_DIR: path.join(dir, 'direct-terminal'), PORT: '18124' };
      const example = workedExample(dir);
      const first = await importOnTerminal([example.journal, '--reference', example.reference], env, '');
      expect(first.code, first.stdout).to.equal(0);
      expect(first.stdout).to.match(/import 0\.0 MB \[[^\]]+\] step 5\/5: writing the ledger/);
      expect(first.stdout).to.match(/loaded 2 entries into the duckdb store in \d+ ms/);
      writeFileSync(
        path.join(dir, 'rename-7.csv'),
        'kind,id,company_id,name,time_zone\ncompany,7,,Example Renamed,America/New_York\n',
      );
      writeFileSync(
        path.join(dir, 'more-7.csv'),
        MORE.replace(/X1/g, 'Y1')
          .replace(/,101,/g, ',70,')
          .replace(/,4000,/, ',74000,')
          .replace(/,1000,/, ',71000,'),
      );
      const asked = await importOnTerminal(
        [path.join(dir, 'more-7.csv'), '--reference', path.join(dir, 'rename-7.csv')],
        env,
        'y\n',
      );
      expect(asked.code, asked.stdout).to.equal(0);
      expect(asked.stdout).to.include('  - company 7: name "Worked Example Co" → "Example Renamed"');
      expect(asked.stdout).to.include('Go on with these changes? [y/N]');
      expect(asked.stdout, asked.stdout).to.match(
        /Company 7 \(Example Renamed\): figures from 2024-01-05 to 2025-02-03 \(all before this year/,
      );
      expect(asked.stdout).to.include(
        "'http://127.0.0.1:18124/v1/Reporting/ProfitAndLoss/Flat?CompanyId=7&UseCustomDateRange=true",
      );
    },
  );

  it("When a key is created, then its curl line covers the company's figures and shows them", async () => {
    const data = path.join(dir, 'keys');
    const example = workedExample(dir);
    const env = { DATA_DIR: data, DEMO_DATA: '0' };
    expect((await cli('import', [example.journal, '--reference', example.reference], env)).code).to.equal(0);
    const server = await startProductionServer({ ...env, BASE_PATH: '/reporting' });
    running.push(server);
    await server.waitForOutput(/Reports need an API key/);
    const created = await cli('keys', ['create', '--company', '7'], env);
    expect(created.code, created.stderr).to.equal(0);
    const curl = /curl -H 'X-ApiKey: (\S+)' '([^']+)'/.exec(created.stdout)!;
    expect(curl[2]).to.equal(`${server.url}/v1/Reporting/ProfitAndLoss/Flat?${SPAN_7}`);
    const report = await json(curl[2]!, curl[1]!);
    expect(report.ReportModel.Rows.find((r) => r.RowName === 'Total Income')?.Values.at(-1)).to.equal(1000);
  });

  it('When the port and the next one are busy, then the start suggests a port that is free', async () => {
    const holders: Server[] = [];
    const listenOn = (port: number) =>
      new Promise<Server>((resolve, reject) => {
        const s = createServer();
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve(s));
      });
    const first = await listenOn(0);
    holders.push(first);
    const port = (first.address() as AddressInfo).port;
    holders.push(await listenOn(port + 1).catch(() => first));
    try {
      const outcome = await new Promise<Outcome>((resolve) =>
        execFile(
          process.execPath,
          ['dist/src/start.js'],
          { cwd: REPO_ROOT, env: productionEnv({ DATA_DIR: path.join(dir, 'busy'), PORT: String(port), DEBUG: '' }) },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        ),
      );
      expect(outcome.code).to.equal(1);
      const suggested = /e\.g\. PORT=(\d+) npm start \((\d+) is free\)\.$/.exec(outcome.stderr.trim());
      expect(suggested, outcome.stderr).to.not.equal(null);
      expect(Number(suggested![1])).to.not.equal(port + 1);
      const probe = await listenOn(Number(suggested![1]));
      probe.close();
    } finally {
      for (const holder of holders) holder.close();
    }
  });

  (skipPostgres ? describe.skip : describe)('over PostgreSQL', () => {
    it(
      'When a server runs over the database, then the import reports its real URL (asked through keys.sock) ' +
        'and refuses a silent rename',
      async () => {
        const pg = await startPostgresServer();
        stopAfter.push(() => pg.destroy());
        const databaseUrl = await pg.createDatabase('import_reporting');
        const data = path.join(dir, 'pg');
        const server = await startProductionServer({ DATA_DIR: data, DATABASE_URL: databaseUrl, BASE_PATH: '/r' });
        running.push(server);
        await server.waitForOutput(/Demo API key for company 1/);
        const env = { DATA_DIR: data, DATABASE_URL: databaseUrl };
        const example = workedExample(dir);
        const imported = await cli('import', [example.journal, '--reference', example.reference], env);
        expect(imported.code, imported.stderr).to.equal(0);
        expect(imported.stdout).to.match(/^loaded 2 entries into the postgres store in \d+ ms\n/);
        expect(imported.stdout, imported.stdout).to.include(
          `  curl -H 'X-ApiKey: <your key>' '${server.url}/v1/Reporting/ProfitAndLoss/Flat?${SPAN_7}'`,
        );
        const refused = await cli(
          'import',
          [path.join(dir, 'more.csv'), '--reference', path.join(dir, 'rename.csv')],
          env,
        );
        expect(refused.code).to.equal(1);
        expect(refused.stderr.trim().split('\n').at(-1)).to.equal(REFUSAL);
      },
    );
  });
});
