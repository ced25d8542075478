/**
 * "Add ServiceStack Reference": `typescript-ref <url>` (@servicestack/cli) fetches /types/typescript from the running
 * test server and writes dtos.ts; `tsc --strict` compiles it together with a small program that calls echo and the
 * report through @servicestack/client's JsonServiceClient, which then runs against the same server.
 * Also: /types/csharp in ServiceStack's C# form.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import request from 'supertest';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { TEST_TOOLS, testToolBin, testToolPackage } from '../../support/test-tools.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');

/** Compiled with dtos.ts under tsc --strict, then run: echo and the report through JsonServiceClient. */
const PROGRAM = `import { JsonServiceClient } from '@servicestack/client';
import { EchoRequest, EchoResponse, GetFlatRequest, GetFlatResponse } from './dtos';

export async function callThroughDtos(baseUrl: string, apiKey: string, filter: string) {
  const client = new JsonServiceClient(baseUrl);
  client.basePath = '/json/reply/';
  client.headers.set('X-ApiKey', apiKey);
  const echo: EchoResponse = await client.get(new EchoRequest({ Message: 'from dtos.ts' }));
  const report: GetFlatResponse = await client.get(
    new GetFlatRequest({
      CompanyId: 1, UseCustomDateRange: true, StartDate: '2024-01-01', EndDate: '2024-02-29',
      Filters: [filter], IncludeComputedColumns: true,
    }),
  );
  const posted: GetFlatResponse = await client.post(new GetFlatRequest({
    CompanyId: 1, UseCustomDateRange: true, StartDate: '/Date(1704067200000)/', EndDate: '/Date(1706659200000)/',
  }));
  const net = report.ReportModel?.Rows?.find((r) => r.RowName === 'Net Income');
  return {
    echo: echo.Message, company: echo.CompanyName, net: net?.Values, posted: posted.ReportModel?.ColumnNames,
    responseType: new GetFlatRequest().createResponse().constructor.name,
  };
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'ES2022',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    noEmit: true,
    skipLibCheck: true,
    // @servicestack/client from the test tools (test/package.json).
    baseUrl: '.',
    paths: { '@servicestack/client': [testToolPackage('@servicestack/client')] },
  },
  files: ['dtos.ts', 'program.ts'],
};

describe('native types: /types/typescript with typescript-ref, tsc --strict and JsonServiceClient', function () {
  this.timeout(120_000);
  let t: ListeningTestApp;
  let dir: string;
  before(async () => {
    t = await listenTestApp();
    // Under the test tools, so that program.ts resolves @servicestack/client from there when it is run.
    const cache = path.join(TEST_TOOLS, '.cache');
    await mkdir(cache, { recursive: true });
    dir = await mkdtemp(path.join(cache, 'native-types-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves ServiceStack TypeScript native types as text/plain with the request BaseUrl', async () => {
    const res = await request(t.server).get('/types/typescript');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8');
    expect(res.text).to.match(/^\/\* Options:\nDate: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\nVersion: [\d.]+\nTip: /);
    expect(res.text).to.include(`BaseUrl: http://${new URL(t.url).host}\n`);
    expect(res.text).to.include('export interface IReturn<T>\n{\n    createResponse(): T;\n}');
    expect(res.text).to.include('// @Route("/v1/echo/{Message}", "GET")\n');
    expect(res.text).to.include('export class EchoRequest implements IReturn<EchoResponse>\n{');
    expect(res.text).to.include(
      'public constructor(init?: Partial<GetFlatRequest>) { (Object as any).assign(this, init); }',
    );
    expect(res.text).to.include(
      "public getTypeName() { return 'GetFlatRequest'; }\n    public getMethod() { return 'GET'; }\n    public " +
        'createResponse() { return new GetFlatResponse(); }',
    );
    expect(res.text, 'no @ts-nocheck: tsc --strict really checks it').not.to.include('@ts-nocheck');
  });

  it('typescript-ref writes dtos.ts; it compiles with tsc --strict and works with JsonServiceClient', async () => {
    const { stdout } = await run(testToolBin('typescript-ref'), [t.url], {
      cwd: dir,
      env: { ...process.env, SERVICESTACK_TELEMETRY_OPTOUT: '1' },
    });
    expect(stdout).to.match(/Saved to: dtos\.ts/);
    const dtos = await readFile(path.join(dir, 'dtos.ts'), 'utf8');
    expect(dtos).to.include(`BaseUrl: ${t.url}`);
    await writeFile(path.join(dir, 'program.ts'), PROGRAM);
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    const compiled = await run(TSC, ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(compiled, 'tsc --strict output').to.equal('');

    const program = (await import(pathToFileURL(path.join(dir, 'program.ts')).href)) as {
      callThroughDtos(baseUrl: string, apiKey: string, filter: string): Promise<Record<string, unknown>>;
    };
    const result = await program.callThroughDtos(t.url, t.apiKey, DINE_IN);
    expect(result.company).to.be.a('string').and.not.equal('');
    delete result.company; // the key's company when a key is sent, else the configured name
    expect(result).to.deep.equal({
      echo: 'from dtos.ts',
      net: [1000, 1200, 2200],
      posted: ['Jan 2024'],
      responseType: 'GetFlatResponse',
    });
  });

  it('serves the C# DTOs with [Route], [DataContract]/[DataMember] and IReturn<T>', async () => {
    const res = await request(t.server).get('/types/csharp');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8');
    expect(res.text).to.match(/^\/\* Options:\nDate: .+\nVersion: .+\nTip: .+\nBaseUrl: http:\/\/127\.0\.0\.1:\d+\n/);
    expect(res.text).to.include('using ServiceStack;\n');
    expect(res.text).to.include(
      '    [Route("/v1/Reporting/ProfitAndLoss/Flat", "GET")]\n    ' +
        '[DataContract(Namespace="http://schemas.servicestack.net/types")]\n    public partial class ' +
        'GetFlatRequest\n        : IReturn<GetFlatResponse>\n    {\n        [DataMember]\n        public virtual ' +
        'bool UseAccountMapping { get; set; }',
    );
    expect(res.text).to.include('public virtual DateTime StartDate { get; set; }');
    expect(res.text).to.include('public virtual List<decimal> Values { get; set; }');
    expect(res.text).to.include('public virtual ResponseStatus ResponseStatus { get; set; }');
    expect(res.text, 'ResponseStatus comes from ServiceStack').not.to.include('class ResponseStatus');
  });

  it('answers /types/* outside the legacy 404 handler, and unknown /types/x with the legacy 404', async () => {
    expect((await request(t.server).get('/TYPES/TypeScript')).status).to.equal(200);
    const res = await request(t.server).get('/types/cobol');
    expect(res.status).to.equal(404);
    expect(res.text).to.equal('404');
  });
});
