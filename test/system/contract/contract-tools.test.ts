/**
 * The contract in the tools users open first, each run for real once (the slow tool runs live in this one file):
 * - Swagger UI (served at /docs) in headless Chromium: "Try it out" → Execute with what the page pre-fills answers
 * JSON;
 * - Prism (`prism mock openapi/reporting-service.yaml`, started as a user starts it) serves the contract's examples
 *   for every documented 200 and error, a believable report rather than placeholders;
 * - json-schema-faker (the generator Prism's dynamic mocks use; Schemathesis itself, a Python tool, cannot be
 *   installed here) generates requests for every operation from its parameter and body schemas, and the server
 *   answers each with a documented, contract-valid status: the array limit stated as `x-max-items` keeps generated
 *   arrays short (with `maxItems: 1000` they ran to hundreds of items and past the URL limit);
 * - openapi-client-axios' typegen emits a small .d.ts whose `Locations` is `number[]` (not a 1000-element tuple), and
 *   a caller's `number[]` compiles with `tsc --strict` and reaches the server through openapi-client-axios;
 * - the client-only package (packages/client): `npm pack`, installed offline into a fresh project, at most three
 *   runtime dependencies, compiled with `tsc --strict` alone, calling the server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { generateSync, type JsonSchema as Schema } from 'json-schema-faker';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../../support/chromium.ts';
import { loadOpenApiDocument, OPENAPI_PATH } from '../../../src/contract/openapi-document.ts';
import { contractOperations, responseFor } from '../../../src/contract/operations.ts';
import { generateDemoLedger } from '../../../src/store/demo-ledger.ts';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { TEST_TOOLS, testToolBin } from '../../support/test-tools.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const OUTPUT = path.resolve('test-output');
const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
  example?: Json;
}
interface MediaObject {
  schema?: Schema;
  example?: Json;
  examples?: Record<string, { $ref?: string; value?: Json }>;
}
interface OperationObject {
  operationId: string;
  parameters?: ({ $ref: string } | ParameterObject)[];
  requestBody?: { content: Record<string, MediaObject> };
}

const doc = loadOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    parameters: Record<string, ParameterObject>;
    examples: Record<string, { value: Json }>;
    responses: Record<string, { content: Record<string, MediaObject> }>;
  } & Record<string, unknown>;
};
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const parametersOf = (op: OperationObject): ParameterObject[] =>
  (op.parameters ?? []).map((p) => ('$ref' in p ? doc.components.parameters[refName(p.$ref)]! : p));
/** The JSON examples a response declares (its `examples` by $ref, or `example`). */
function declaredExamples(operationId: string, status: string): Json[] {
  const op = Object.values(doc.paths)
    .flatMap((item) => Object.values(item))
    .find((o) => o.operationId === operationId)!;
  let response = (
    op as unknown as { responses: Record<string, { $ref?: string; content?: Record<string, MediaObject> }> }
  ).responses[status]!;
  if (response.$ref) response = doc.components.responses[refName(response.$ref)]!;
  const media = response.content!['application/json']!;
  return media.examples
    ? Object.values(media.examples).map((e) => (e.$ref ? doc.components.examples[refName(e.$ref)]!.value : e.value!))
    : [media.example!];
}

/** Prism's own placeholders for a schema without an example. */
function placeholders(value: Json, at = '$'): string[] {
  if (value === 'string' || value === -2147483648 || value === 2147483647) return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, `${at}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => placeholders(v, `${at}.${k}`));
  return [];
}

function startPrismMock(port: number): Promise<{ child: ChildProcess; log: string[] }> {
  const log: string[] = [];
  // As a user starts it: `npx prism mock openapi/reporting-service.yaml`, from the repository.
  const child = spawn(
    testToolBin('prism'),
    ['mock', path.relative(ROOT, OPENAPI_PATH), '--port', String(port), '--host', '127.0.0.1'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${log.join('')}`)), 90_000);
    const read = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (/Prism is listening/.test(log.join(''))) {
        clearTimeout(timer);
        resolve({ child, log });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`Prism exited (${code}):\n${log.join('')}`)));
  });
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  dev?: boolean;
  link?: boolean;
  [key: string]: unknown;
}

/** The consumer's lockfile: the tarball, and the closure of its dependencies as the repository's lockfile pins them. */
function consumerLock(
  tarball: string,
  manifest: { name: string; version: string; dependencies: Record<string, string> },
  integrity: string,
): unknown {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      integrity,
      dependencies: manifest.dependencies,
    },
  };
  const pending = Object.keys(manifest.dependencies);
  while (pending.length) {
    const name = pending.pop()!;
    const where = `node_modules/${name}`;
    if (packages[where]) continue;
    const entry = lock.packages[where];
    if (!entry) throw new Error(`${name} is not in package-lock.json at the top level`);
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
    packages[where] = rest;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

describe('the contract in the tools users open first', function () {
  this.timeout(600_000);
  let t: ListeningTestApp;
  let work: string;

  before(async () => {
    // The demo ledger the contract's examples name (locations 101-104, the DineIn option), over half a year.
    t = await listenTestApp({ batch: generateDemoLedger({ from: '2025-01-01', to: '2025-06-30', ticketsPerDay: 1 }) });
    work = mkdtempSync(path.join(tmpdir(), 'contract-tools-'));
    mkdirSync(OUTPUT, { recursive: true });
  });
  after(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('Swagger UI (/docs) in headless Chromium', () => {
    let browser: Browser;
    before(async function () {
      if (process.env.SKIP_BROWSER === '1') return this.skip();
      if (!existsSync(CHROMIUM))
        throw new Error(
          `Chromium not found at ${CHROMIUM}: apt-get install chromium, set CHROMIUM_PATH, or SKIP_BROWSER=1`,
        );
      browser = await launchChromium();
    });
    after(() => browser?.close());

    it(
      '"Try it out" → Execute with the pre-filled values answers JSON for Echo and, after Authorize, for GetFlat ' +
        '(screenshot swagger-ui-execute.png)',
      async () => {
        const page = await browser.newPage({ viewport: { width: 1300, height: 2400 } });
        await page.goto(`${t.url}/docs`);
        const execute = async (block: string, urlPart: string) => {
          const op = page.locator(block);
          await op.locator('.opblock-summary').first().click();
          await op.locator('button.try-out__btn').click();
          const [response] = await Promise.all([
            page.waitForResponse((r) => r.url().includes(urlPart) && r.request().method() === 'GET'),
            op.locator('button.execute').click(),
          ]);
          await op.locator('.live-responses-table .response-col_status').first().waitFor();
          return {
            url: response.url(),
            status: response.status(),
            contentType: response.headers()['content-type'] ?? '',
            body: await response.text(),
          };
        };

        const echo = await execute('#operations-Echo-Echo', '/v1/echo/');
        expect(echo.url).to.equal(`${t.url}/v1/echo/hello`);
        expect([echo.status, echo.contentType]).to.deep.equal([200, 'application/json; charset=utf-8']);
        expect(JSON.parse(echo.body)).to.include({ Message: 'hello' });

        await page.locator('button.authorize').first().click();
        const apiKey = page.locator('.modal-ux .auth-container').filter({ hasText: 'X-ApiKey' });
        await apiKey.locator('input').fill(t.apiKey);
        await apiKey.locator('button.authorize').click();
        await page.locator('.modal-ux button.btn-done').first().click();

        const flat = await execute('#operations-Reporting-GetFlat', FLAT);
        const query = new URL(flat.url).searchParams;
        expect([...query.keys()].filter((k) => /^(callback|format)$/i.test(k))).to.deep.equal([]);
        expect(query.getAll('Locations')).to.deep.equal(['101', '102']);
        expect([flat.status, flat.contentType]).to.deep.equal([200, 'application/json; charset=utf-8']);
        const report = JSON.parse(flat.body) as { ReportModel: { ColumnNames: string[]; Rows: { RowName: string }[] } };
        expect(report.ReportModel.ColumnNames).to.deep.equal([
          'Jan 2025',
          'Feb 2025',
          'Mar 2025',
          'Apr 2025',
          'May 2025',
          'Jun 2025',
          'Total',
        ]);
        expect(report.ReportModel.Rows.map((r) => r.RowName)).to.include('Net Income');
        await page.screenshot({ path: path.join(OUTPUT, 'swagger-ui-execute.png') });
        await page.close();
      },
    );
  });

  describe('prism mock openapi/reporting-service.yaml', () => {
    let prism: { child: ChildProcess; log: string[] };
    let base: string;
    before(async () => {
      const port = await freePort();
      prism = await startPrismMock(port);
      base = `http://127.0.0.1:${port}`;
    });
    after(() => prism?.child.kill('SIGTERM'));

    const mockGet = async (url: string, headers: Record<string, string> = {}) => {
      const res = await fetch(base + url, { headers: { Accept: 'application/json', ...headers } });
      return { status: res.status, body: (await res.json()) as Json };
    };

    it("serves the contract's report example for GetFlat: believable figures, no placeholder", async () => {
      const res = await mockGet(`${FLAT}?CompanyId=1`, { 'X-ApiKey': 'any' });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(doc.components.examples.GetFlatResponse!.value);
      expect(placeholders(res.body)).to.deep.equal([]);
      const rows = (res.body as { ReportModel: { Rows: { RowName: string; Values: number[] }[] } }).ReportModel.Rows;
      const row = (name: string) => rows.find((r) => r.RowName === name)!.Values;
      // The example's figures add up as a report's do: Net Income = Gross Profit - Expenses + Net Other Income.
      row('Net Income').forEach((v, i) =>
        expect(v).to.be.closeTo(
          row('Gross Profit')[i]! - row('Total Expenses')[i]! + row('Net Other Income')[i]!,
          0.005,
        ),
      );
    });

    it(
      "answers every operation's 200 and every documented JSON error with one of the contract's examples (Prefer: " +
        'code=N)',
      async () => {
        const calls: { operationId: string; url: string; method?: string; body?: Json; secured?: boolean }[] = [
          { operationId: 'Echo', url: '/v1/echo/hello' },
          { operationId: 'EchoReplyGet', url: '/json/reply/EchoRequest?Message=hello' },
          { operationId: 'EchoReplyPost', url: '/json/reply/EchoRequest', method: 'POST', body: { Message: 'hello' } },
          { operationId: 'GetFlat', url: `${FLAT}?CompanyId=1`, secured: true },
          { operationId: 'GetFlatReplyGet', url: '/json/reply/GetFlatRequest?CompanyId=1', secured: true },
          {
            operationId: 'GetFlatReplyPost',
            url: '/json/reply/GetFlatRequest',
            method: 'POST',
            body: { CompanyId: 1 },
            secured: true,
          },
          { operationId: 'GetFlatReport', url: `${FLAT}/Reports/eyJ2IjoxfQ.${'a'.repeat(43)}`, secured: true },
        ];
        let checked = 0;
        for (const call of calls) {
          const op = contractOperations().byId(call.operationId)!;
          for (const [status, response] of op.responses) {
            if (!response.mediaTypes.includes('application/json')) continue;
            const res = await fetch(base + call.url, {
              method: call.method ?? 'GET',
              headers: {
                Accept: 'application/json',
                Prefer: `code=${status}`,
                ...(call.secured ? { 'X-ApiKey': 'any' } : {}),
                ...(call.body ? { 'Content-Type': 'application/json' } : {}),
              },
              body: call.body === undefined ? undefined : JSON.stringify(call.body),
            });
            const body = (await res.json()) as Json;
            expect(res.status, `${call.operationId} ${status}`).to.equal(Number(status));
            expect(
              declaredExamples(call.operationId, status),
              `${call.operationId} ${status}: ${JSON.stringify(body).slice(0, 200)}`,
            ).to.deep.include(body);
            expect(placeholders(body), `${call.operationId} ${status}`).to.deep.equal([]);
            checked++;
          }
        }
        expect(checked).to.be.greaterThan(40);
        const anonymous = await mockGet(`${FLAT}?CompanyId=1`);
        expect(anonymous.status).to.equal(401);
        expect(anonymous.body).to.deep.equal(doc.components.examples.Unauthorized!.value);
      },
    );
  });

  it(
    'json-schema-faker: requests generated for every operation from its schemas (at random, and one value at a ' +
      'time from the examples) are all answered with a documented, valid status; arrays stay short',
    async () => {
      const statuses: Record<string, Record<number, number>> = {};
      let longestArray = 0;
      let longestUrl = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const record = contractOperations().byId(op.operationId)!;
          const parameters = parametersOf(op).filter((p) => p.in === 'path' || p.in === 'query');
          const body = op.requestBody?.content['application/json'];
          const schema = {
            type: 'object',
            properties: {
              ...Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
              ...(body ? { body: body.schema } : {}),
            },
            required: [
              ...parameters.filter((p) => p.required).map((p) => p.name),
              ...(op.requestBody && (op.requestBody as { required?: boolean }).required ? ['body'] : []),
            ],
            components: doc.components,
          } as Schema;
          // The documented call (every parameter's example, the body's example): Schemathesis' coverage phase varies
          // one value of it at a time, so that a generated value meets otherwise valid input.
          const documented: Record<string, Json> = Object.fromEntries(
            parameters.filter((p) => p.example !== undefined).map((p) => [p.name, p.example!]),
          );
          if (body?.example !== undefined) documented.body = body.example;
          const names = Object.keys((schema as { properties: object }).properties);
          const send = async (values: Record<string, Json>) => {
            let url = template;
            const query = new URLSearchParams();
            for (const p of parameters) {
              const value = values[p.name];
              if (value === undefined) continue;
              if (Array.isArray(value)) longestArray = Math.max(longestArray, value.length);
              if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
              else for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, String(v));
            }
            if (query.size) url += `?${query}`;
            longestUrl = Math.max(longestUrl, url.length);
            const res = await fetch(t.url + url, {
              method: method.toUpperCase(),
              headers: {
                Accept: 'application/json',
                ...(record.secured ? { 'X-ApiKey': t.apiKey } : {}),
                ...(values.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
              },
              body: values.body === undefined ? undefined : JSON.stringify(values.body),
            });
            const text = await res.text();
            const sent = `${method.toUpperCase()} ${url} ${JSON.stringify(values.body ?? '')}`;
            const where = `${sent}: ${res.status} ${text.slice(0, 300)}`;
            expect(res.status, where).to.be.below(500);
            expect(responseFor(record, res.status), `undocumented status: ${where}`).to.not.equal(undefined);
            const counts = (statuses[op.operationId] ??= {});
            counts[res.status] = (counts[res.status] ?? 0) + 1;
          };
          for (let seed = 1; seed <= 25; seed++) {
            const generated = generateSync(schema, { seed }) as Record<string, Json>;
            await send(generated);
            const name = names[seed % names.length]!;
            const { [name]: _replaced, ...rest } = documented;
            await send(generated[name] === undefined ? rest : { ...rest, [name]: generated[name]! });
          }
        }
      }
      console.log(
        `      json-schema-faker: 50 requests per operation, statuses ${JSON.stringify(statuses)}; longest ` +
          `array ${longestArray}, longest URL ${longestUrl}`,
      );
      expect(Object.keys(statuses)).to.have.length(contractOperations().all.length);
      expect(longestArray).to.be.within(1, 10);
      for (const op of contractOperations().all.filter((o) => o.operationId !== 'GetFlatReport')) {
        expect(Object.keys(statuses[op.operationId]!), op.operationId).to.include('200');
      }
    },
  );

  it(
    "openapi-client-axios typegen: a small .d.ts with Locations as number[], a caller's number[] compiles with " +
      'tsc --strict and reaches the server',
    async () => {
      const dir = path.join(work, 'axios');
      mkdirSync(dir);
      symlinkSync(TEST_TOOLS, path.join(dir, 'node_modules')); // openapi-client-axios and axios, from the test tools
      const { stdout: dts } = await run(testToolBin('typegen'), [OPENAPI_PATH], { cwd: dir, maxBuffer: 64 << 20 });
      writeFileSync(path.join(dir, 'client.d.ts'), dts);
      expect(dts.length, 'the .d.ts size').to.be.below(200_000);
      expect(dts).to.match(/Locations\?: number \/\* int32 \*\/\[\];/);
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(
        path.join(dir, 'caller.ts'),
        `import { OpenAPIClientAxios } from 'openapi-client-axios';
import type { Client, Paths } from './client.js';

const locations: number[] = [101, 102];
const params: Paths.GetFlat.QueryParameters = {
  CompanyId: 1, UseCustomDateRange: true, StartDate: '2025-01-01', EndDate: '2025-02-28', Locations: locations,
};
const api = new OpenAPIClientAxios({
  definition: ${JSON.stringify(`${t.url}/openapi.json`)},
  axiosConfigDefaults: { baseURL: ${JSON.stringify(t.url)}, headers: { 'X-ApiKey': ${JSON.stringify(t.apiKey)} } },
});
const client = await api.init<Client>();
const res = await client.GetFlat(params);
console.log(
  JSON.stringify({ columns: res.data.ReportModel.ColumnNames, locations: res.data.SelectedOptions.Locations }),
);
`,
      );
      await run(process.execPath, [TSC, '--strict', '--module', 'nodenext', '--target', 'es2022', 'caller.ts'], {
        cwd: dir,
      }).catch((e: { stdout?: string }) => {
        throw new Error(`tsc --strict failed:\n${e.stdout ?? String(e)}`);
      });
      const { stdout } = await run(process.execPath, ['caller.js'], { cwd: dir });
      expect(JSON.parse(stdout)).to.deep.equal({ columns: ['Jan 2025', 'Feb 2025'], locations: [101, 102] });
    },
  );

  it(
    'the client-only package: packed, installed offline into a fresh project with at most 3 runtime dependencies, ' +
      'compiled with tsc --strict alone, calling the server',
    async () => {
      const pkgDir = path.join(ROOT, 'packages/client');
      const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        dependencies: Record<string, string>;
      };
      expect(Object.keys(manifest.dependencies).length).to.be.at.most(3);
      const rootManifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const [name, range] of Object.entries(manifest.dependencies))
        expect(range, name).to.equal(rootManifest.dependencies[name]);

      const dir = path.join(work, 'consumer');
      mkdirSync(dir);
      const { stdout: packJson } = await run(NPM, ['pack', '--json', '--pack-destination', dir], {
        cwd: pkgDir,
        maxBuffer: 16 << 20,
      });
      const packed = (JSON.parse(packJson) as { filename: string; integrity: string; files: { path: string }[] }[])[0]!;
      const files = packed.files.map((f) => f.path);
      for (const file of [
        'dist/src/client/index.js',
        'dist/src/client/index.d.ts',
        'dist/src/contract/dtos.d.ts',
        'dist/generated/openapi.d.ts',
        'openapi/reporting-service.yaml',
        'wsdl/SyncReply.wsdl',
        'wsdl/types.xsd',
        'package.json',
      ]) {
        expect(files).to.include(file);
      }
      expect(
        files.filter(
          (f) =>
            /^dist\/src\/(?!client\/|contract\/dtos|scalars\/)/.test(f) || (/\.ts$/.test(f) && !f.endsWith('.d.ts')),
        ),
      ).to.deep.equal([]);

      writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify(
          { name: 'consumer', private: true, dependencies: { [manifest.name]: `file:${packed.filename}` } },
          null,
          2,
        ),
      );
      writeFileSync(
        path.join(dir, 'package-lock.json'),
        JSON.stringify(consumerLock(packed.filename, manifest, packed.integrity), null, 2),
      );
      await run(NPM, ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: dir,
        maxBuffer: 16 << 20,
      });
      const { stdout: installed } = await run(NPM, ['ls', '--all', '--parseable', '--omit=dev'], { cwd: dir });
      const installedPackages = installed.trim().split('\n').slice(1); // the consumer itself first
      expect(installedPackages.length, installed).to.be.at.most(4);

      const require = createRequire(path.join(dir, 'package.json'));
      expect(readFileSync(require.resolve(`${manifest.name}/openapi.yaml`), 'utf8')).to.equal(
        readFileSync(OPENAPI_PATH, 'utf8'),
      );
      writeFileSync(
        path.join(dir, 'index.ts'),
        `import { createReportingClient, ResponseStatusError } from '${manifest.name}';
import type { GetFlatResponse, OrderBy, ResponseStatus } from '${manifest.name}/dtos';

const client = createReportingClient({ baseUrl: ${JSON.stringify(t.url)}, apiKey: ${JSON.stringify(t.apiKey)} });
const order: OrderBy = 'AmountDescending';
const out: {
  columns?: GetFlatResponse['ReportModel']['ColumnNames'];
  locations?: number[];
  startIsDate?: boolean;
  echo?: string;
  error?: ResponseStatus;
} = {};
client
  .getFlat({
    CompanyId: 1, UseCustomDateRange: true, StartDate: new Date(Date.UTC(2025, 0, 1)),
    EndDate: new Date(Date.UTC(2025, 1, 28)), OrderBy: order, Locations: [101],
  })
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
`,
      );
      await run(process.execPath, [TSC, '--strict', 'index.ts'], { cwd: dir }).catch((e: { stdout?: string }) => {
        throw new Error(`tsc --strict failed:\n${e.stdout ?? String(e)}`);
      });
      const { stdout } = await run(process.execPath, ['index.js'], { cwd: dir });
      expect(JSON.parse(stdout)).to.deep.equal({
        columns: ['Jan 2025', 'Feb 2025'],
        locations: [101],
        startIsDate: true,
        echo: 'hello',
        error: {
          ErrorCode: 'ArgumentException',
          Message: 'Location 99 does not belong to company 1.',
          Errors: [
            { ErrorCode: 'NotFound', FieldName: 'Locations', Message: 'Location 99 does not belong to company 1.' },
          ],
        },
      });
    },
  );
});
