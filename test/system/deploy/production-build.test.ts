/**
 * The production build (`npm run build` → dist/, `node dist/src/start.js`) run from a production install: a copy of
 * dist/ and package.json beside a node_modules holding only the production dependencies (as `npm ci --omit=dev`
 * leaves it: no tsx, no typescript). The server starts, finds its contract, WSDL, report page and Swagger assets,
 * and the compiled CLIs (dist/scripts/keys.js, import.js) work on its store.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { loadOpenApiDocument, openApiContract } from '../../../src/contract/openapi-document.ts';
import { moduleSpecifiers, packageOf } from '../../support/module-specifiers.ts';
import { PRODUCTION_ENV } from '../../../scripts/lib/production-start.ts';
import {
  REPO_ROOT,
  ensureProductionBuild,
  productionEnv,
  startProductionServer,
  startServerProcess,
  stopNpmStarted,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);
const REFERENCE = `kind,id,company_id,name,type,number,standard_account_id,category_id,base_currency,time_zone
company,7,,Compiled Co,,,,,USD,UTC
location,770,7,Harbour,,,,,,
account,7100,7,Cash,Bank,1000,,,,
account,7400,7,Sales,Income,4000,,,,
`;
const JOURNAL = `entry,date,location,account,amount,memo
C1,2024-01-05,770,7400,-1000.00,Dinner
C1,2024-01-05,770,7100,1000.00,
`;
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function compiledFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? compiledFiles(path.join(dir, e.name)) : /\.c?js$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

/** A production install in a temp dir: dist/, package.json, and hard links of the production packages only. */
async function productionInstall(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rs-prod-'));
  cpSync(path.join(REPO_ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  cpSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  const { stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: REPO_ROOT,
    maxBuffer: 16 << 20,
  }).catch((e: { stdout: string }) => e);
  const modules = path.join(REPO_ROOT, 'node_modules') + path.sep;
  const topLevel = stdout
    .split('\n')
    .filter((p) => p.startsWith(modules) && !p.slice(modules.length).includes(`${path.sep}node_modules${path.sep}`));
  for (const source of new Set(topLevel)) {
    const target = path.join(dir, 'node_modules', source.slice(modules.length));
    mkdirSync(path.dirname(target), { recursive: true });
    await run('cp', ['-al', source, target]).catch(() => run('cp', ['-a', source, target]));
  }
  return dir;
}

describe('production build: node dist/src/start.js with production dependencies only', function () {
  this.timeout(180_000);
  let install: string;
  let data: string;

  before(async () => {
    await ensureProductionBuild();
    install = await productionInstall();
    data = mkdtempSync(path.join(tmpdir(), 'rs-prod-data-'));
  });
  after(() => {
    if (install) rmSync(install, { recursive: true, force: true });
    if (data) rmSync(data, { recursive: true, force: true });
  });

  it('keeps TypeScript tooling out of the production dependencies', () => {
    for (const tool of ['tsx', 'typescript', 'ts-node']) expect(pkg.dependencies, tool).not.to.have.property(tool);
    expect(existsSync(path.join(install, 'node_modules', 'tsx')), 'tsx in the production install').to.equal(false);
    expect(
      existsSync(path.join(install, 'node_modules', 'typescript')),
      'typescript in the production install',
    ).to.equal(false);
  });

  it('reads at start the contract the build dereferenced: the same document, its shared schemas shared', async () => {
    const built = (await import(
      pathToFileURL(path.join(REPO_ROOT, 'dist/src/contract/openapi-document.js')).href
    )) as typeof import('../../../src/contract/openapi-document.ts');
    expect(existsSync(built.DEREFERENCED_PATH), built.DEREFERENCED_PATH).to.equal(true);
    const [fromBuild, fromSources] = [built.openApiContract(), openApiContract()];
    expect(isDeepStrictEqual(fromBuild.document, fromSources.document)).to.equal(true);
    const echo = (c: typeof fromBuild) =>
      (c.document.paths['/v1/echo/{Message}']!.get!.responses['200'] as { content: Record<string, { schema: object }> })
        .content['application/json']!.schema;
    expect(fromBuild.schemaName(echo(fromBuild))).to.equal('EchoResponse');
    expect(fromBuild.document.components!.schemas!.EchoResponse).to.equal(echo(fromBuild));
    expect(built.loadOpenApiDocument()).to.deep.equal(loadOpenApiDocument());
  });

  it('compiled modules import only Node built-ins and production dependencies', () => {
    const builtins = new Set(builtinModules);
    const outside: string[] = [];
    const seen = new Set<string>();
    for (const file of compiledFiles(path.join(REPO_ROOT, 'dist'))) {
      for (const spec of moduleSpecifiers(file)) {
        if (spec.startsWith('.') && spec.endsWith('.ts'))
          outside.push(`${path.relative(REPO_ROOT, file)}: ${spec} (not rewritten to .js)`);
        if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
        seen.add(packageOf(spec));
        if (!(packageOf(spec) in pkg.dependencies)) outside.push(`${path.relative(REPO_ROOT, file)}: ${spec}`);
      }
    }
    expect(outside).to.deep.equal([]);
    expect([...seen], 'the scan finds the runtime packages').to.include.members([
      'express',
      'pg',
      '@duckdb/node-api',
      'soap',
      'csv-parse',
      'proxy-addr',
      'express-openapi-validator',
      'helmet',
      'pino',
      'ajv-draft-04',
    ]);
  });

  it('serves contract, WSDL, report page, API docs, native types; the compiled CLIs work on its store', async () => {
    // The compiled CLI makes a key before the server holds the DuckDB file (one process at a time).
    const env = productionEnv({ DATA_DIR: data, DEMO_DATA: '1' });
    const server = await startProductionServer({ DATA_DIR: data, DEMO_DATA: '1' }, install);
    let key: string;
    try {
      const url = server.url;
      expect(await (await fetch(`${url}/v1/echo/hello`)).json()).to.deep.equal({
        Message: 'hello',
        CompanyName: 'Reporting Service',
        ResponseStatus: {},
      });
      const wsdl = await (await fetch(`${url}/soap12?wsdl`)).text();
      expect(wsdl).to.contain(`<soap12:address location="${url}/soap12"`);
      expect(await (await fetch(`${url}/openapi.yaml`)).text()).to.equal(
        readFileSync(path.join(REPO_ROOT, 'openapi/reporting-service.yaml'), 'utf8'),
      );
      expect((await fetch(`${url}/assets/report-page.js`)).status).to.equal(200);
      expect((await fetch(`${url}/assets/chart.umd.min.js`)).status).to.equal(200);
      expect((await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)).status).to.equal(200);
      expect(await (await fetch(`${url}/types/typescript`)).text()).to.contain(`BaseUrl: ${url}`);
      await server.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
      key = /Demo API key for company 1 \(shown once, stored hashed\): (\S+)/.exec(server.output())![1]!;
      const report = await fetch(`${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`, {
        headers: { 'X-ApiKey': key },
      });
      expect(report.status).to.equal(200);
      const page = await fetch(`${((await report.json()) as { Url: string }).Url}.html`, {
        headers: { 'X-ApiKey': key },
      });
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain('/assets/report-page.js');
    } finally {
      expect(await server.stop()).to.equal(0);
    }

    writeFileSync(path.join(data, 'reference.csv'), REFERENCE);
    writeFileSync(path.join(data, 'journal.csv'), JOURNAL);
    const imported = await run(
      process.execPath,
      ['dist/scripts/import.js', path.join(data, 'journal.csv'), '--reference', path.join(data, 'reference.csv')],
      { cwd: install, env },
    );
    expect(imported.stdout).to.match(/loaded 1 entries/);
    const made = await run(
      process.execPath,
      ['dist/scripts/keys.js', 'create', '--company', '7', '--name', 'compiled-cli'],
      { cwd: install, env },
    );
    const cliKey = /key \(shown once, stored hashed\): (\S+)/.exec(made.stdout)![1]!;
    const listed = await run(process.execPath, ['dist/scripts/keys.js', 'list'], { cwd: install, env });
    expect(listed.stdout).to.match(/\tcompiled-cli\tcompanies 7\t/);

    const again = await startProductionServer({ DATA_DIR: data, DEMO_DATA: '1' }, install);
    try {
      expect(
        (await fetch(`${again.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`, { headers: { 'X-ApiKey': key } }))
          .status,
      ).to.equal(200);
      const report = await fetch(
        `${again.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=7&UseCustomDateRange=true&StartDate=2024-01-01&` +
          `EndDate=2024-01-31`,
        { headers: { 'X-ApiKey': cliKey } },
      );
      expect(report.status).to.equal(200);
      expect(JSON.stringify(await report.json())).to.contain('Sales');
    } finally {
      expect(await again.stop()).to.equal(0);
    }
  });

  it(
    'AUTH=none under BASE_PATH behind PUBLIC_BASE_URL: warns at start, prints the root with its prefix, links ' +
      'use the public base',
    async () => {
      const server = await startProductionServer(
        {
          DATA_DIR: data,
          DEMO_DATA: '1',
          AUTH: 'none',
          BASE_PATH: '/reporting',
          PUBLIC_BASE_URL: 'https://reports.example.com/reporting',
        },
        install,
      );
      try {
        expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/reporting$/);
        const warning = server
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { level: number; msg: string })
          .find((l) => l.msg.startsWith('AUTH=none'));
        expect(warning?.level, 'a pino warning').to.equal(40);
        await server.waitForOutput(
          new RegExp(
            String.raw`open in a browser \(report page with chart\): ` +
              String.raw`https://reports\.example\.com/reporting/v1/Reporting/ProfitAndLoss/Flat/Reports/\S+\n`,
          ),
        );
        const report = await fetch(`${server.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`);
        expect(report.status).to.equal(200);
        const { Url } = (await report.json()) as { Url: string };
        expect(Url).to.match(
          /^https:\/\/reports\.example\.com\/reporting\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\//,
        );
        expect((await fetch(`${server.url}${new URL(Url).pathname.slice('/reporting'.length)}.csv`)).status).to.equal(
          200,
        );
        expect((await fetch(server.url.replace('/reporting', '/v1/echo/hi'))).status).to.equal(404);
      } finally {
        expect(await server.stop(), server.output()).to.equal(0);
      }
    },
  );

  it('every command the banner, the CLIs and --help print works in this layout (npm scripts run dist/)', async () => {
    const layoutData = mkdtempSync(path.join(tmpdir(), 'rs-prod-commands-'));
    // npm as a user runs it there: the install's own node_modules/.bin first, then the repository's (its Node 24).
    const env = {
      ...productionEnv({ DATA_DIR: layoutData, DEMO_DATA: '0', PORT: '0' }),
      PATH: `${path.join(REPO_ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    };
    const npm = (args: string[]) =>
      run('npm', ['run', '-s', ...args], { cwd: install, env }).catch(
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const said: string[] = [];
    /** The commands a text tells the user to run, as written (usage lines with placeholders left out). */
    const commandsIn = (text: string) =>
      [...text.matchAll(/`(npm run [^`]+)`|: (npm run \S+ -- [^\n(]+)/g)]
        .map((m) => (m[1] ?? m[2]!).trim())
        .filter((c) => !/[<[]/.test(c));
    try {
      writeFileSync(path.join(layoutData, 'reference.csv'), REFERENCE);
      writeFileSync(path.join(layoutData, 'journal.csv'), JOURNAL);
      // The first-start banner of an empty store names the import and the keys commands.
      const server = await startServerProcess('npm', ['start'], { cwd: install, env });
      try {
        await server.waitForOutput(/Reports need an API key|load one with/);
        said.push(server.output());
        // The server npm start started (its pid in its log lines) has the variables the start script sets.
        const environ = readFileSync(`/proc/${/"pid":(\d+)/.exec(server.output())![1]}/environ`, 'utf8').split('\0');
        expect(Object.keys(PRODUCTION_ENV)).to.not.be.empty;
        for (const [name, value] of Object.entries(PRODUCTION_ENV)) expect(environ).to.include(`${name}=${value}`);
      } finally {
        await stopNpmStarted(server);
      }
      const help = await npm(['import', '--', '--help']);
      expect(help.stdout, help.stderr).to.match(/^usage: npm run import -- <file\.csv>/);
      said.push(help.stdout);
      const commands = new Set(
        said
          .flatMap(commandsIn)
          .map((c) =>
            c
              .replace('journal.csv', path.join(layoutData, 'journal.csv'))
              .replace('chart.csv', path.join(layoutData, 'reference.csv')),
          ),
      );
      expect([...commands]).to.include.members([
        `npm run import -- ${path.join(layoutData, 'journal.csv')} ` +
          `--reference ${path.join(layoutData, 'reference.csv')}`,
      ]);
      // Run them as printed, the import first, then what each prints in turn (the import's `keys create`).
      const queue = [...commands].sort(
        (a, b) => Number(!a.startsWith('npm run import')) - Number(!b.startsWith('npm run import')),
      );
      for (let command = queue.shift(); command; command = queue.shift()) {
        const outcome = await npm(command.replace(/^npm run /, '').split(/\s+/));
        expect('code' in outcome ? outcome.code : 0, `${command}: ${outcome.stderr}`).to.equal(0);
        for (const next of commandsIn(outcome.stdout).filter((c) => !commands.has(c))) {
          commands.add(next);
          queue.push(next);
        }
      }
      expect([...commands]).to.include('npm run keys -- create --company 7');
      const created = await npm(['keys', '--', 'create', '--company', '7']);
      expect(created.stdout, created.stderr).to.match(
        /curl -H 'X-ApiKey: \S+' '\S+StartDate=2024-01-05&EndDate=2024-01-05/,
      );
      const listed = await npm(['keys', '--', 'list']);
      expect(listed.stdout).to.match(/companies 7/);
    } finally {
      rmSync(layoutData, { recursive: true, force: true });
    }
  });
});
