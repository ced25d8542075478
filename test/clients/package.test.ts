/**
 * The installable package: `npm pack` (prepack builds dist/ when stale) makes a tarball with compiled JS and .d.ts
 * whose `exports` give the typed client, the DTO types and the contract files. A fresh project elsewhere installs it
 * (offline: its lockfile pins the tarball and the service's production dependencies, which `npm ci` cached), compiles
 * a consumer with `tsc --strict` and no other flag, and calls the running server with it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DOWNTOWN } from '../fixtures/worked-example.ts';
import { listenTestApp, type ListeningTestApp } from '../support/listening.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Packed {
  filename: string;
  version: string;
  integrity: string;
  files: { path: string }[];
}

interface LockEntry {
  dev?: boolean;
  link?: boolean;
  [key: string]: unknown;
}

/** The consumer's lockfile: the tarball plus the production closure of the service's own lockfile (entries not marked dev). */
function consumerLock(packed: Packed): unknown {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; engines: unknown };
  const spec = `file:${packed.filename}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { 'reporting-service': spec } },
    'node_modules/reporting-service': { version: packed.version, resolved: spec, integrity: packed.integrity, dependencies: manifest.dependencies, engines: manifest.engines },
  };
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where.startsWith('node_modules/') && !entry.dev && !entry.link) packages[where] = entry;
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

const consumerSource = (baseUrl: string, apiKey: string) => `import { createReportingClient, ResponseStatusError } from 'reporting-service';
import type { GetFlatResponse, OrderBy, ResponseStatus } from 'reporting-service/dtos';

const client = createReportingClient({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: ${JSON.stringify(apiKey)} });
const order: OrderBy = 'AmountDescending';
const out: { columns?: GetFlatResponse['ReportModel']['ColumnNames']; locations?: number[]; startIsDate?: boolean; echo?: string; error?: ResponseStatus } = {};
client
  .getFlat({ CompanyId: 1, UseCustomDateRange: true, StartDate: new Date(Date.UTC(2024, 0, 1)), EndDate: new Date(Date.UTC(2024, 1, 29)), OrderBy: order, Locations: [${DOWNTOWN}] })
  .then((report) => {
    out.columns = report.ReportModel.ColumnNames;
    out.locations = report.SelectedOptions.Locations;
    out.startIsDate = report.SelectedOptions.StartDate instanceof Date;
    return client.echo('hello');
  })
  .then((echo) => {
    out.echo = echo.Message;
    return client.getFlat({ CompanyId: 1, Locations: [99] });
  })
  .catch((error: unknown) => {
    if (error instanceof ResponseStatusError) out.error = error.ResponseStatus;
    else throw error;
  })
  .then(() => console.log(JSON.stringify(out)));
`;

describe('the npm package: packed, installed into a fresh project, used with tsc --strict', function () {
  this.timeout(300_000);
  let t: ListeningTestApp;
  let work: string;
  let packed: Packed;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'reporting-service-package-'));
    t = await listenTestApp();
    const { stdout } = await run(NPM, ['pack', '--json', '--pack-destination', work], { cwd: ROOT, maxBuffer: 16 << 20 });
    packed = (JSON.parse(stdout) as Packed[])[0]!;
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: { 'reporting-service': `file:${packed.filename}` } }, null, 2));
    writeFileSync(path.join(work, 'package-lock.json'), JSON.stringify(consumerLock(packed), null, 2));
    await run(NPM, ['ci', '--offline', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: work, maxBuffer: 16 << 20 });
  });
  after(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs compiled JavaScript and declarations, the contract files, and no TypeScript sources or tests', () => {
    const files = packed.files.map((f) => f.path);
    for (const file of ['dist/src/client/index.js', 'dist/src/client/index.d.ts', 'dist/src/contract/dtos.d.ts', 'dist/generated/openapi.d.ts', 'openapi/reporting-service.yaml', 'wsdl/SyncReply.wsdl', 'package.json']) {
      expect(files).to.include(file);
    }
    expect(files.filter((f) => /^(src|test|scripts)\//.test(f) || (/\.ts$/.test(f) && !f.endsWith('.d.ts')))).to.deep.equal([]);
  });

  it('exports the contract files', () => {
    const require = createRequire(path.join(work, 'package.json'));
    expect(readFileSync(require.resolve('reporting-service/openapi.yaml'), 'utf8')).to.equal(readFileSync(path.join(ROOT, 'openapi/reporting-service.yaml'), 'utf8'));
    expect(readFileSync(require.resolve('reporting-service/wsdl/types.xsd'), 'utf8')).to.equal(readFileSync(path.join(ROOT, 'wsdl/types.xsd'), 'utf8'));
  });

  it('compiles a consumer with tsc --strict alone, and its calls reach the server with typed results and ResponseStatus errors', async () => {
    writeFileSync(path.join(work, 'index.ts'), consumerSource(t.url, t.apiKey));
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--strict', 'index.ts'], { cwd: work }).catch((e: { stdout?: string }) => {
      throw new Error(`tsc --strict failed:\n${e.stdout ?? String(e)}`);
    });
    const { stdout } = await run(process.execPath, ['index.js'], { cwd: work });
    expect(JSON.parse(stdout)).to.deep.equal({
      columns: ['Jan 2024', 'Feb 2024'],
      locations: [DOWNTOWN],
      startIsDate: true,
      echo: 'hello',
      error: {
        ErrorCode: 'ArgumentException',
        Message: 'Location 99 does not belong to company 1.',
        Errors: [{ ErrorCode: 'NotFound', FieldName: 'Locations', Message: 'Location 99 does not belong to company 1.' }],
      },
    });
  });
});
