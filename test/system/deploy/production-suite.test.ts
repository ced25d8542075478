/**
 * The program users run, as they run it: `npm start` (build when stale, then `node dist/src/start.js` on the pinned
 * Node), started twice over the same build and data folder. Each start answers every contract operation in every
 * response format, the report link as JSON, CSV, HTML and XLSX (the XLSX opened with read-excel-file, a reader this
 * project did not write), the SOAP endpoint and its WSDL, the metadata pages and /docs, and passes the conformance
 * suite (the compiled CLI, dist/scripts/conformance.js) against itself. Responses are validated against openapi/ by
 * the process itself (VALIDATE_RESPONSES=1: a response off the contract would be a 500) and by conformance.
 */
import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import readXlsxFile from 'read-excel-file/node';
import { operationRequests, type ContractRequest } from '../../../src/conformance/requests.ts';
import {
  REPO_ROOT,
  ensureProductionBuild,
  productionEnv,
  startServerProcess,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm start` in the repository, as the README tells a new user: the port is chosen by the system. */
function npmStart(dataDir: string): Promise<ServerProcess> {
  return startServerProcess(npm, ['start', '--silent'], {
    env: productionEnv({ DATA_DIR: dataDir, DEMO_DATA: '1', VALIDATE_RESPONSES: '1' }),
    timeoutMs: 180_000,
  });
}

interface FormatCheck {
  /** Added to the sample request's query. */
  query: string;
  contentType: RegExp;
  /** Batches (`/json/reply/{Op}[]`) are answered in this format too. */
  batches: boolean;
  /**
   * Checks the body of an answer whose response DTO is `dto` (a list of them for a batch); `field` is a member that DTO
   * always has.
   */
  check(body: string, dto: string, field: string, batch: boolean): void;
}

const xml = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true });
const firstOf = (value: unknown, batch: boolean) => (batch ? (value as unknown[])[0] : value);

const FORMATS: Record<string, FormatCheck> = {
  json: {
    query: 'format=json',
    contentType: /^application\/json/,
    batches: true,
    check: (body, _dto, field, batch) => expect(firstOf(JSON.parse(body), batch)).to.have.property(field),
  },
  xml: {
    query: 'format=xml',
    contentType: /^application\/xml/,
    batches: true,
    check: (body, dto, field, batch) =>
      expect(batch ? xml.parse(body)[`ArrayOf${dto}`][dto] : xml.parse(body)[dto]).to.have.property(field),
  },
  jsv: {
    query: 'format=jsv',
    contentType: /^application\/jsv/,
    batches: true,
    check: (body, _dto, field, batch) =>
      expect(body).to.match(new RegExp(`^${batch ? '\\[' : ''}\\{.*\\b${field}:`, 's')),
  },
  csv: {
    query: 'format=csv',
    contentType: /^text\/csv/,
    batches: true,
    check: (body, _dto, field) => expect((parseCsv(body, { bom: true }) as string[][])[0]).to.include(field),
  },
  html: {
    query: 'format=html',
    contentType: /^text\/html/,
    batches: false,
    check: (body, _dto, field) =>
      expect(body)
        .to.match(/^<!doctype html>/i)
        .and.contain(field),
  },
  jsonp: {
    query: 'callback=showReport',
    contentType: /^text\/javascript/,
    batches: false,
    check: (body, _dto, field) => expect(body).to.match(new RegExp(`^showReport\\(\\{.*"${field}":`, 's')),
  },
};

const RESPONSE_OF: Record<string, { dto: string; field: string }> = {
  EchoRequest: { dto: 'EchoResponse', field: 'CompanyName' },
  GetFlatRequest: { dto: 'GetFlatResponse', field: 'Url' },
};

async function send(base: string, request: ContractRequest, query: string, key: string): Promise<Response> {
  const url = `${base}${request.url}${request.url.includes('?') ? '&' : '?'}${query}`;
  return fetch(url, { method: request.method, headers: { ...request.headers, 'X-ApiKey': key }, body: request.body });
}

/** Everything a start must answer (see the module comment). */
async function checkEveryAnswer(server: ServerProcess, key: string): Promise<void> {
  const base = server.url;
  const operations = operationRequests(1).filter((op) => op.sample);
  expect(operations.map((op) => op.operationId)).to.include.members([
    'Echo',
    'EchoReplyGet',
    'EchoReplyPost',
    'GetFlat',
    'GetFlatReplyGet',
    'GetFlatReplyPost',
  ]);
  expect(
    operations.filter((op) => op.record.batch),
    'the batch operations',
  ).to.have.length(2);
  for (const op of operations) {
    const expected = RESPONSE_OF[op.record.requestDto]!;
    for (const [name, format] of Object.entries(FORMATS).filter(([, f]) => f.batches || !op.record.batch)) {
      const answer = await send(base, op.sample!, format.query, key);
      const body = await answer.text();
      const what = `${op.operationId} as ${name}`;
      expect(answer.status, `${what}: ${body.slice(0, 300)}`).to.equal(200);
      expect(answer.headers.get('content-type'), what).to.match(format.contentType);
      format.check(body, expected.dto, expected.field, op.record.batch);
    }
  }

  const report = await fetch(`${base}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true`, {
    headers: { 'X-ApiKey': key },
  });
  const { Url } = (await report.json()) as { Url: string };
  const link = (suffix: string) => fetch(`${Url}${suffix}`, { headers: { 'X-ApiKey': key } });
  const asJson = await link('.json');
  expect(asJson.headers.get('content-type')).to.match(/^application\/json/);
  const rows = ((await asJson.json()) as { ReportModel: { Rows?: unknown[] } }).ReportModel;
  expect(rows).to.be.an('object');
  const csvAnswer = await link('.csv');
  expect(csvAnswer.status).to.equal(200);
  const csv = parseCsv(await csvAnswer.text(), { bom: true }) as string[][];
  const htmlAnswer = await link('.html');
  expect(htmlAnswer.status).to.equal(200);
  expect(await htmlAnswer.text()).to.contain('/assets/report-page.js');
  const xlsxAnswer = await link('.xlsx');
  expect(xlsxAnswer.status, 'the XLSX download').to.equal(200);
  expect(xlsxAnswer.headers.get('content-type')).to.equal(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  const [sheet] = await readXlsxFile(Buffer.from(await xlsxAnswer.arrayBuffer()));
  expect(sheet!.data[0], 'the XLSX header row is the CSV one').to.deep.equal(csv[0]);
  const firstAccount = sheet!.data.find((row) => row[0] === 'Account')!;
  const sameInCsv = csv.find((row) => row[0] === 'Account' && row[3] === firstAccount[3])!;
  expect(firstAccount.slice(6).map(Number), 'the XLSX figures are the CSV ones').to.deep.equal(
    sameInCsv.slice(6).map(Number),
  );
  expect(
    firstAccount.slice(6).some((v) => Number(v) !== 0),
    'the demo ledger has figures',
  ).to.equal(true);

  const wsdl = await fetch(`${base}/soap12?wsdl`);
  expect(await wsdl.text()).to.contain(`<soap12:address location="${base}/soap12"`);
  const fault = await fetch(`${base}/soap12`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/soap+xml; charset=utf-8' },
    body:
      '<?xml version="1.0"?><soap:Envelope ' +
      'xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><EchoRequest ' +
      'xmlns="http://schemas.servicestack.net/types"><Message>x</Message></EchoRequest></soap:Body>' +
      '</soap:Envelope>',
  });
  expect(fault.headers.get('content-type')).to.match(/^application\/soap\+xml/);
  expect(await fault.text()).to.contain('Fault');
  for (const [page, type] of [
    ['/metadata', /^text\/html/],
    ['/json/metadata?op=EchoRequest', /^text\/html/],
    ['/types/metadata', /^application\/json/],
    ['/types/typescript', /^text\/plain/],
    ['/docs', /^text\/html/],
    ['/openapi.yaml', /^application\/yaml/],
  ] as const) {
    const answer = await fetch(`${base}${page}`);
    expect(answer.status, page).to.equal(200);
    expect(answer.headers.get('content-type'), page).to.match(type);
  }

  const conformance = await run(process.execPath, ['dist/scripts/conformance.js', base, '--api-key', key], {
    cwd: REPO_ROOT,
    env: productionEnv({}),
  }).catch((error: { stdout: string }) =>
    expect.fail(`conformance failed against the production process:\n${error.stdout}`),
  );
  expect(conformance.stdout).to.match(/pass/);
}

/**
 * Stops the service as systemd does, with SIGTERM to the server process itself (its pid is in its log lines; npm,
 * its parent, then exits with the server's code), and returns that code once the server has said it stopped.
 */
async function stopServer(server: ServerProcess): Promise<number | null> {
  const pid = Number(/"pid":(\d+)/.exec(server.output())?.[1]);
  if (!pid) return server.stop();
  process.kill(pid, 'SIGTERM');
  const code = await server.exited;
  // 'exit' can come before the last output is read: the pipe closes after it.
  if (!server.child.stdout!.closed) await once(server.child.stdout!, 'close');
  expect(server.output(), 'the server drained and stopped').to.match(/"msg":"stopped"/);
  return code;
}

describe('production suite: npm start, twice over one build and data folder', function () {
  this.timeout(600_000);
  let data: string;
  before(async () => {
    await ensureProductionBuild();
    data = mkdtempSync(path.join(tmpdir(), 'rs-production-suite-'));
  });
  after(() => rmSync(data, { recursive: true, force: true }));

  it(
    'When started the first and the second time, then every operation, format, link, SOAP and docs page answers, ' +
      'and both stop cleanly',
    async () => {
      const first = await npmStart(data);
      let key: string;
      try {
        await first.waitForOutput(/Demo API key for company 1 \(shown once, stored hashed\): \S+\n/);
        key = /Demo API key for company 1 \(shown once, stored hashed\): (\S+)/.exec(first.output())![1]!;
        await checkEveryAnswer(first, key);
      } finally {
        expect(await stopServer(first), first.output()).to.equal(0);
      }
      const second = await npmStart(data);
      try {
        await second.waitForOutput(/Reports need an API key/);
        expect(second.output(), 'no second demo key').to.not.contain('Demo API key');
        await checkEveryAnswer(second, key);
        expect(second.output(), 'no request failed').to.not.match(/"level":50/);
      } finally {
        expect(await stopServer(second), second.output()).to.equal(0);
      }
    },
  );
});
