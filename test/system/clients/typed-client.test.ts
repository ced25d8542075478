/**
 * The typed client (src/client/) against the in-process server on a loopback port: every operation of openapi/,
 * typed results with `Date` objects, and ResponseStatus errors as ResponseStatusError.
 */
import { expect } from 'chai';
import { operationRoutes } from '../../../generated/client-contract.ts';
import {
  clientMethodOf,
  createReportingClient,
  parseLegacyDate,
  ResponseStatusError,
  toLegacyDate,
  type ReportingClient,
} from '../../../src/client/index.ts';
import { loadOpenApiDocument } from '../../../src/contract/openapi-document.ts';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

const JAN_1 = new Date('2024-01-01T00:00:00Z');
const FEB_29 = new Date('2024-02-29T00:00:00Z');

/** The key the test app accepts, once API keys exist (issue 6); undefined before. */
function apiKeyOf(t: ListeningTestApp): string | undefined {
  return (t as unknown as { apiKey?: string }).apiKey;
}

describe('typed client (openapi-fetch over generated/openapi.ts)', () => {
  let t: ListeningTestApp;
  let client: ReportingClient;
  before(async () => {
    t = await listenTestApp();
    client = createReportingClient({ baseUrl: t.url, apiKey: apiKeyOf(t) });
  });
  after(() => t.close());

  it('reaches every operationId of openapi/ through call(), at the documented method and path', () => {
    const doc = loadOpenApiDocument();
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item ?? {}).flatMap(([method, op]) => {
        const id = (op as { operationId?: string }).operationId;
        return id ? [[id, { method: method.toUpperCase(), path }] as const] : [];
      }),
    );
    expect(documented).to.have.length.greaterThan(0);
    expect(Object.fromEntries(documented)).to.deep.equal(operationRoutes);
    for (const method of Object.values(clientMethodOf)) expect(client[method]).to.be.a('function');
  });

  it('call() answers like the named methods', async () => {
    const viaCall = await client.call('Echo', { path: { Message: 'called' } });
    expect(viaCall.Message).to.equal('called');
    const report = await client.call('GetFlatReplyPost', {
      body: { CompanyId: 1, UseCustomDateRange: true, StartDate: JAN_1, EndDate: FEB_29 },
    });
    expect(report.SelectedOptions.StartDate).to.be.instanceOf(Date);
  });

  it('echo, echoReplyGet and echoReplyPost return the typed EchoResponse', async () => {
    const a = await client.echo('hello');
    const b = await client.echoReplyGet({ Message: 'via get' });
    const c = await client.echoReplyPost({ Message: 'via post' });
    expect([a.Message, b.Message, c.Message]).to.deep.equal(['hello', 'via get', 'via post']);
    expect(a.CompanyName).to.be.a('string').and.not.equal('');
  });

  it(
    'getFlat, getFlatReplyGet and getFlatReplyPost send Dates as /Date(ms)/ and return SelectedOptions dates as ' +
      'Date',
    async () => {
      const request = {
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: JAN_1,
        EndDate: FEB_29,
        Filters: [DINE_IN],
        IncludeComputedColumns: true,
      };
      const results = await Promise.all([
        client.getFlat(request),
        client.getFlatReplyGet(request),
        client.getFlatReplyPost(request),
      ]);
      for (const report of results) {
        const start: Date | undefined = report.SelectedOptions.StartDate;
        expect(start).to.be.instanceOf(Date);
        expect(start?.toISOString()).to.equal(JAN_1.toISOString());
        expect(report.SelectedOptions.EndDate?.toISOString()).to.equal(FEB_29.toISOString());
        expect(report.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024', 'Total']);
        expect(report.ReportModel.Rows.find((r) => r.RowName === 'Net Income')?.Values).to.deep.equal([
          1000, 1200, 2200,
        ]);
      }
    },
  );

  it('accepts the legacy string forms for date inputs as well', async () => {
    const report = await client.getFlatReplyPost({
      CompanyId: 1,
      UseCustomDateRange: true,
      StartDate: '/Date(1704067200000)/',
      EndDate: '2024-01-31',
    });
    expect(report.ReportModel.ColumnNames).to.deep.equal(['Jan 2024']);
  });

  it('throws a ResponseStatusError with ErrorCode, Message, Errors and the HTTP status', async () => {
    const error = await client.getFlat({ CompanyId: 1, Locations: [99] }).then(
      () => expect.fail('expected an error'),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ResponseStatusError);
    const e = error as ResponseStatusError;
    expect(e.status).to.equal(400);
    expect(e.ErrorCode).to.equal('ArgumentException');
    expect(e.Message).to.equal('Location 99 does not belong to company 1.');
    expect(e.Errors).to.deep.equal([
      { ErrorCode: 'NotFound', FieldName: 'Locations', Message: 'Location 99 does not belong to company 1.' },
    ]);
  });

  it('a binding failure on the pre-defined route is a ResponseStatusError too', async () => {
    // The types require CompanyId; a request without it still gets a ResponseStatus.
    const e = (await client.getFlatReplyPost({} as never).catch((x: unknown) => x)) as ResponseStatusError;
    expect(e).to.be.instanceOf(ResponseStatusError);
    expect(e.status).to.be.oneOf([400, 401]);
    expect(e.ResponseStatus?.ErrorCode).to.be.a('string');
  });

  it('converts dates both ways exactly', () => {
    expect(toLegacyDate(JAN_1)).to.equal('/Date(1704067200000)/');
    expect(parseLegacyDate('/Date(1704067200000)/')?.getTime()).to.equal(JAN_1.getTime());
    expect(parseLegacyDate('/Date(1704067200000+0100)/')?.getTime()).to.equal(JAN_1.getTime());
    expect(parseLegacyDate('2024-01-01')).to.equal(undefined);
  });
});
