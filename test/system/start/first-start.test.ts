/**
 * The first hour of a new user (issue 27), with the production server started as `npm start` starts it
 * (`node dist/src/start.js`) and the CLIs as `npm run import|keys` run them: what they read on the console.
 * - The banner comes first; the warm-up requests are not in the log; lines are JSON when stdout is not a terminal
 *   and readable on a terminal (a pseudo-terminal from util-linux's `script`).
 * - A busy port is one sentence naming PORT, and leaves nothing half made (no unprinted demo key, no keys.sock).
 * - A second server on the same data folder is one sentence, no stack.
 * - A ledger of last year: the import's summary and the start banner give its date span and a report URL that shows
 *   its figures; `npm run keys -- create` prints a curl line with the port the server really listens on.
 * - `npm start` on a fresh clone, with the machine's own Node on PATH: one line per step (install, build, start), no
 *   EBADENGINE wall, then `npm run keys|import` work on that runtime install; the time to the banner is printed (a
 *   figure, not a budget); the next start goes straight to the server.
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ensureProductionBuild,
  productionEnv,
  REPO_ROOT,
  startProductionServer,
  startServerProcess,
  stopNpmStarted,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';
import { cli, type Outcome } from '../../support/npm-cli.ts';

/** `node dist/src/start.js` until it exits (a start that fails). */
function failedStart(env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/src/start.js'],
      { cwd: REPO_ROOT, env: productionEnv({ DEBUG: '', ...env }), timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** `npm run -s <args>` in `cwd` until it exits. */
function npmRun(cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '-s', ...args], { cwd, env, timeout: 600_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const ANSI = /\u001b\[[0-9;]*m/g;

describe('first start: what a new user reads', function () {
  this.timeout(180_000);
  let dir: string;
  const running: ServerProcess[] = [];
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'first-start-'));
    await ensureProductionBuild();
  });
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'When stdout is not a terminal, then the banner comes first, the warm-up is not logged, and log lines are ' +
      'JSON',
    async () => {
      const server = await startProductionServer({ DATA_DIR: path.join(dir, 'json') });
      running.push(server);
      await server.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
      await server.waitForOutput(/"msg":"ready"/);
      const lines = server.output().split('\n');
      expect(lines[0]).to.match(/^Reporting Service listening on http:\/\/127\.0\.0\.1:\d+ \(duckdb store\)$/);
      expect(server.output(), 'no warm-up request in the log').not.to.match(/"statusCode":401|warmup|soap12\?wsdl/);
      await fetch(`${server.url}/v1/echo/hi`);
      await server.waitForOutput(/"method":"GET","url":"\/v1\/echo\/hi".*"statusCode":200/);
    },
  );

  it(
    "When the demo ledger is made, then it ends today (its company's time zone), and the default report " +
      'covers that day',
    async () => {
      const server = await startProductionServer({ DATA_DIR: path.join(dir, 'demo-today') });
      running.push(server);
      await server.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
      const key = /Demo API key for company 1 \(shown once, stored hashed\): (\S+)\n/.exec(server.output())![1]!;
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date());
      expect(server.output()).to.include(
        `Company 1 (Harbor Bistro Group): figures from ${Number(today.slice(0, 4)) - 2}-01-01 to ${today}.`,
      );
      const report = (await (
        await fetch(`${server.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`, { headers: { 'X-ApiKey': key } })
      ).json()) as { SelectedOptions: { EndDate: string } };
      const end = Number(/\/Date\((-?\d+)/.exec(report.SelectedOptions.EndDate)![1]);
      expect(new Date(end).toISOString().slice(0, 10), 'the default range ends today').to.equal(today);
    },
  );

  it(
    'When stdout is a terminal, then log lines are readable (time, level, one access line per request), not ' + 'JSON',
    async () => {
      const command = `${process.execPath} dist/src/start.js`;
      const server = await startServerProcess('script', ['-qfec', command, '/dev/null'], {
        env: productionEnv({ DATA_DIR: path.join(dir, 'tty') }),
      });
      running.push(server);
      await server.waitForOutput(/ready/); // coloured: INFO and the message are apart in the raw output
      await fetch(`${server.url}/v1/echo/hi`);
      await fetch(`${server.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`);
      await server.waitForOutput(/GET \/v1\/Reporting\/ProfitAndLoss\/Flat\?CompanyId=1 401 \d+ ms/);
      const text = server.output().replace(ANSI, '');
      expect(text.trimStart()).to.match(/^Reporting Service listening on /);
      expect(text).to.match(/\[\d\d:\d\d:\d\d\] INFO: GET \/v1\/echo\/hi 200 \d+ ms/);
      expect(text).not.to.include('{"level"');
      expect(text.match(/ 401 /g), 'only the request sent here is a 401').to.have.length(1);
    },
  );

  it(
    "When dist/src/start.js is run by the machine's own Node older than 24, then one sentence names the Node to " +
      'use, exit 1',
    async function () {
      const PATH = (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((p) => !p.includes('node_modules'))
        .join(path.delimiter);
      const machineNode = execFileSync('sh', ['-c', 'command -v node || true'], { env: { PATH } }).toString().trim();
      const version = machineNode && execFileSync(machineNode, ['--version']).toString().trim();
      if (!version || Number(version.slice(1).split('.')[0]) >= 24) this.skip();
      const outcome = await new Promise<Outcome>((resolve) => {
        execFile(
          machineNode,
          ['dist/src/start.js'],
          { cwd: REPO_ROOT, env: productionEnv({ DATA_DIR: path.join(dir, 'old-node'), PATH }), timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
      });
      expect(outcome.code).to.equal(1);
      expect(outcome.stderr.trim()).to.equal(
        `The Reporting Service needs Node.js 24 or later, and this is ${version}: start it with npm start, or ` +
          'node_modules/.bin/node dist/src/start.js (npm ci installs that Node).',
      );
      expect(existsSync(path.join(dir, 'old-node')), 'no data folder made').to.equal(false);
    },
  );

  it('When the port is busy, then one sentence names PORT, the exit code is 1, and nothing is half made', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const data = path.join(dir, 'busy');
    try {
      const outcome = await failedStart({ DATA_DIR: data, PORT: String(port) });
      expect(outcome.code).to.equal(1);
      expect(outcome.stderr.trim()).to.match(
        new RegExp(
          `^Port ${port} \\(PORT\\) is already in use on 127\\.0\\.0\\.1: stop the process that holds it, or ` +
            `start on another port, e\\.g\\. PORT=(\\d+) npm start \\(\\1 is free\\)\\.$`,
        ),
      );
      expect(outcome.stdout).to.equal('');
      expect(existsSync(path.join(data, 'keys.sock')), 'no keys.sock left').to.equal(false);
    } finally {
      holder.close();
    }
    // The next start on a free port is the first that got that far: it makes the demo key and prints it.
    const server = await startProductionServer({ DATA_DIR: data });
    running.push(server);
    await server.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
  });

  it(
    'When a second server is started on the same data folder, then one sentence says so and how to go on, no ' +
      'stack',
    async () => {
      const data = path.join(dir, 'shared');
      const first = await startProductionServer({ DATA_DIR: data });
      running.push(first);
      const outcome = await failedStart({ DATA_DIR: data });
      expect(outcome.code).to.equal(1);
      expect(outcome.stderr.trim().split('\n')).to.have.length(1);
      expect(outcome.stderr).to.match(
        new RegExp(
          String.raw`^The ledger file .*ledger\.duckdb is in use by another process \(a running server\?\)\. ` +
            String.raw`Stop it first, or use PostgreSQL \(DATABASE_URL\)`,
        ),
      );
      expect(outcome.stderr).not.to.match(/^\s+at |Error:/m);
      expect(existsSync(path.join(data, 'keys.sock')), 'the first server keeps its socket').to.equal(true);
    },
  );

  it(
    'When a ledger of last year is imported, then the summary and the banner give its span and a URL that ' +
      'shows its figures; keys create names the real port',
    async () => {
      const year = new Date().getUTCFullYear() - 1;
      const data = path.join(dir, 'last-year');
      const env = { DATA_DIR: data, DEMO_DATA: '0' };
      writeFileSync(
        path.join(dir, 'reference.csv'),
        'kind,id,company_id,name,type,number\ncompany,1,,Import ' +
          'Co,,\nlocation,10,1,Downtown,,\naccount,1000,1,Cash,Bank,1000\naccount,4000,1,Sales,Income,4000\n',
      );
      writeFileSync(
        path.join(dir, 'journal.csv'),
        `entry,date,location,account,amount\nA1,${year}-03-05,10,4000,-1000.00\nA1,${year}-03-05,10,1000,` +
          `1000.00\nA2,${year}-05-20,10,4000,-250\nA2,${year}-05-20,10,1000,250\n`,
      );
      const imported = await cli(
        'import',
        [path.join(dir, 'journal.csv'), '--reference', path.join(dir, 'reference.csv')],
        env,
      );
      expect(imported.code, imported.stderr).to.equal(0);
      const spanLine =
        `Company 1 (Import Co): figures from ${year}-03-05 to ${year}-05-20 (all before this year: a report ` +
        `without UseCustomDateRange=true covers this year to date and shows zeros; this URL covers them).`;
      expect(imported.stdout).to.include(spanLine);
      const query =
        `CompanyId=1&UseCustomDateRange=true&StartDate=${year}-03-05&EndDate=${year}-05-20&` +
        `IncludeComputedColumns=true`;
      expect(imported.stdout).to.include(`http://127.0.0.1:8080/v1/Reporting/ProfitAndLoss/Flat?${query}`);

      const server = await startProductionServer(env);
      running.push(server);
      await server.waitForOutput(/Reports need an API key/);
      expect(server.output()).to.include(`Company 1 (Import Co): figures from ${year}-03-05`);
      expect(server.output()).to.include(
        `  curl -H 'X-ApiKey: <your key>' '${server.url}/v1/Reporting/ProfitAndLoss/Flat?${query}'`,
      );

      const created = await cli('keys', ['create', '--company', '1'], env);
      expect(created.code, created.stderr).to.equal(0);
      const curl = /curl -H 'X-ApiKey: (\S+)' '([^']+)'/.exec(created.stdout)!;
      expect(curl[2]!.startsWith(`${server.url}/`), `${curl[2]} is on the server's port`).to.equal(true);
      const key = { 'X-ApiKey': curl[1]! };
      const defaultRange = (await (
        await fetch(`${server.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`, { headers: key })
      ).json()) as {
        ReportModel: { Rows: { RowName: string; Values: number[] }[] };
      };
      expect(
        defaultRange.ReportModel.Rows.flatMap((r) => r.Values).every((v) => v === 0),
        'the default range shows zeros',
      ).to.equal(true);
      expect(curl[2], "keys create's curl line covers the span").to.equal(
        `${server.url}/v1/Reporting/ProfitAndLoss/Flat?${query}`,
      );
      const spanned = (await (await fetch(curl[2]!, { headers: key })).json()) as typeof defaultRange;
      expect(spanned.ReportModel.Rows.find((r) => r.RowName === 'Total Income')?.Values.at(-1)).to.equal(1250);
    },
  );

  it(
    'When npm start runs on a fresh clone, then it prints a line per step (install, build, start) and no ' +
      'engine warnings; the next start goes straight to the server',
    async function () {
      this.timeout(900_000);
      const clone = path.join(dir, 'clone');
      execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
      // As a new user has it: the machine's own Node and npm first on PATH, not the repository's node_modules/.bin.
      const ownBin = path.join(REPO_ROOT, 'node_modules', '.bin');
      const PATH = (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((p) => p !== ownBin && !p.includes('node_modules'))
        .join(path.delimiter);
      const env = { ...productionEnv({ DATA_DIR: path.join(dir, 'clone-data') }), PATH };
      try {
        const started = performance.now();
        const first = await startServerProcess('npm', ['start'], { cwd: clone, env, timeoutMs: 900_000 });
        const seconds = (performance.now() - started) / 1000;
        let output: string;
        let keys: Outcome;
        let importHelp: Outcome;
        try {
          await first.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
          output = first.output();
          // The README's next steps, on the runtime install npm start made (no tsx): a key, then an import.
          keys = await npmRun(clone, env, ['keys', '--', 'create', '--company', '1']);
          importHelp = await npmRun(clone, env, ['import', '--', '--help']);
        } finally {
          await stopNpmStarted(first);
        }
        expect(keys.code, keys.stderr).to.equal(0);
        expect(keys.stdout).to.match(/^key \(shown once, stored hashed\): rsk_\S+$/m);
        expect(importHelp.code, importHelp.stderr).to.equal(0);
        expect(importHelp.stdout).to.match(/^usage: npm run import -- <file\.csv>/m);
        console.log(`      first npm start on a fresh clone: ${seconds.toFixed(1)} s to "listening on"`);
        for (const line of output.split('\n').filter((l) => /^(Installing|installed|Building|built|Starting)/.test(l)))
          console.log(`        ${line}`);
        expect(output).to.match(/^Installing the runtime dependencies \(npm ci --omit=dev[^)]*\)\.\.\.$/m);
        expect(output).to.match(/^installed the runtime dependencies in \d+\.\d s$/m);
        expect(output).to.match(/^Building dist\/ \(first start\)\.\.\.$/m);
        expect(output).to.match(/^built dist\/ in \d+\.\d s/m);
        expect(output).to.match(/^Starting the server \(node dist\/src\/start\.js\)\.\.\.$/m);
        expect(output).not.to.include('EBADENGINE');
        const second = await startServerProcess('npm', ['start'], { cwd: clone, env });
        try {
          expect(second.output()).not.to.match(/Installing|Building|Starting the server/);
        } finally {
          await stopNpmStarted(second);
        }
        // The migration tools run from the sources: the first one installs the devDependencies (tsx among them).
        const compare = await npmRun(clone, env, ['compare', '--', '--help']);
        expect(compare.code, compare.stderr).to.equal(0);
        expect(compare.stderr).to.match(/^Installing dependencies \(npm ci[^)]*\)\.\.\.$/m);
        expect(compare.stdout).to.match(/^usage: npm run compare -- --old <url> --new <url>/m);
        const shadow = await npmRun(clone, env, ['shadow', '--', '--help']);
        expect(shadow.code, shadow.stderr).to.equal(0);
        expect(shadow.stdout).to.match(/^usage: npm run shadow -- --old <url> --new <url>/m);
      } finally {
        rmSync(clone, { recursive: true, force: true });
      }
    },
  );
});
