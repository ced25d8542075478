/**
 * The original host's own client, @servicestack/client's JsonServiceClient, against our server: request DTOs
 * carry their type name and verb as ServiceStack's generated DTOs do; their fields come from generated/.
 */
import { expect } from 'chai';
import { getResponseStatus, JsonServiceClient } from '@servicestack/client';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { EchoRequest, GetFlatRequest } from '../../support/servicestack-dtos.ts';
import { TEST_COMPANY_NAME } from '../../support/test-app.ts';

/** The worked example's Jan–Feb 2024 dine-in report with computed rows, sent as a GET. */
const janFebDineIn = () =>
  new GetFlatRequest(
    {
      CompanyId: 1,
      UseCustomDateRange: true,
      StartDate: '2024-01-01',
      EndDate: '2024-02-29',
      Filters: [DINE_IN],
      IncludeComputedColumns: true,
    },
    'GET',
  );

describe('@servicestack/client JsonServiceClient (basePath /json/reply/)', () => {
  let t: ListeningTestApp;
  let client: JsonServiceClient;
  before(async () => {
    t = await listenTestApp();
    client = new JsonServiceClient(t.url);
    client.basePath = '/json/reply/';
  });
  after(() => t.close());

  it('When it POSTs an EchoRequest, then it gets the typed EchoResponse', async () => {
    const response = await client.post(new EchoRequest({ Message: 'hello' }, 'POST'));
    expect(response.Message).to.equal('hello');
    expect(response.CompanyName).to.equal(TEST_COMPANY_NAME);
  });

  it('When it GETs an EchoRequest, then the query string binds and it gets the typed EchoResponse', async () => {
    const response = await client.get(new EchoRequest({ Message: 'via get' }, 'GET'));
    expect(response.Message).to.equal('via get');
  });

  it('When it GETs a GetFlatRequest with arrays and dates, then the report comes back', async () => {
    const response = await client.get(janFebDineIn());
    const net = response.ReportModel.Rows.find((r) => r.RowName === 'Net Income');
    expect(net?.Values).to.deep.equal([1000, 1200, 2200]);
  });

  it('When it POSTs a GetFlatRequest with /Date()/ strings, then the report comes back', async () => {
    const response = await client.post(
      new GetFlatRequest(
        {
          CompanyId: 1,
          UseCustomDateRange: true,
          StartDate: '/Date(1704067200000)/',
          EndDate: '/Date(1709164800000)/',
        },
        'POST',
      ),
    );
    expect(response.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024']);
  });

  it(
    'When the server refuses the request, then the client surfaces our ResponseStatus (camel-cased by the ' + 'client)',
    async () => {
      const error = await client.post(new GetFlatRequest({ CompanyId: 1, Locations: [99] }, 'POST')).then(
        () => expect.fail('expected an error'),
        (e: unknown) => e,
      );
      expect(getResponseStatus(error)).to.deep.equal({
        errorCode: 'ArgumentException',
        message: 'Location 99 does not belong to company 1.',
        errors: [
          { errorCode: 'NotFound', fieldName: 'Locations', message: 'Location 99 does not belong to company 1.' },
        ],
      });
    },
  );

  it('When it calls through api(), then errors come back as a failed ApiResult with the field errors', async () => {
    const result = await client.api(new GetFlatRequest({}, 'POST'));
    expect(result.failed).to.equal(true);
    expect(result.errorCode).to.equal('ArgumentException');
    expect(result.errors.map((e) => e.fieldName)).to.deep.equal(['CompanyId']);
  });
});

describe('@servicestack/client JsonServiceClient with its default base path (/api/, ServiceStack 6+)', () => {
  let t: ListeningTestApp;
  let client: JsonServiceClient;
  before(async () => {
    t = await listenTestApp();
    client = new JsonServiceClient(t.url); // no basePath: the client's own default
  });
  after(() => t.close());

  it('When nothing is configured, then the client sends to /api/{Request}', () => {
    expect(client.replyBaseUrl).to.equal(`${t.url}/api/`);
  });

  it('When it GETs and POSTs an EchoRequest, then it gets the typed EchoResponse', async () => {
    expect((await client.get(new EchoRequest({ Message: 'via api' }, 'GET'))).Message).to.equal('via api');
    const posted = await client.post(new EchoRequest({ Message: 'posted' }, 'POST'));
    expect(posted).to.deep.include({ Message: 'posted', CompanyName: TEST_COMPANY_NAME });
  });

  it('When it GETs a GetFlatRequest with its key, then the report comes back', async () => {
    client.headers.set('X-ApiKey', t.apiKey);
    const response = await client.get(janFebDineIn());
    expect(response.ReportModel.Rows.find((r) => r.RowName === 'Net Income')?.Values).to.deep.equal([1000, 1200, 2200]);
  });

  it('When the server refuses the request, then the client surfaces our ResponseStatus', async () => {
    const error = await client.post(new GetFlatRequest({ CompanyId: 1, Locations: [99] }, 'POST')).then(
      () => expect.fail('expected an error'),
      (e: unknown) => e,
    );
    expect(getResponseStatus(error)?.message).to.equal('Location 99 does not belong to company 1.');
  });
});

describe('@servicestack/client JsonServiceClient batches (sendAll, sendAllOneWay; issue 24)', () => {
  /** The 4.5.14 host's company name, as test/wire/http/batched-requests.test.ts compares with. */
  const CO = 'Reporting Service';
  let t: ListeningTestApp;
  before(async () => (t = await listenTestApp({ companyName: CO })));
  after(() => t.close());

  /**
   * The client as a legacy caller sets it up; reports need its API key (echo is public: a key would change its
   * CompanyName).
   */
  const client = (apiKey?: string) => {
    const c = new JsonServiceClient(t.url);
    c.basePath = '/json/reply/';
    c.oneWayBaseUrl = `${t.url}/json/oneway/`;
    if (apiKey) c.headers.set('X-ApiKey', apiKey);
    return c;
  };

  it('When it sendAll()s three EchoRequests, then it gets the three typed EchoResponses in order', async () => {
    const responses = await client().sendAll([
      new EchoRequest({ Message: 'a' }),
      new EchoRequest({ Message: 'b' }),
      new EchoRequest({ Message: 'c' }),
    ]);
    expect(responses).to.deep.equal(
      ['a', 'b', 'c'].map((Message) => ({ Message, CompanyName: CO, ResponseStatus: {} })),
    );
  });
  it(
    'When it sendAllOneWay()s two EchoRequests, then the call succeeds (the host answers 200 with the ' + 'list)',
    async () => {
      expect(
        await client().sendAllOneWay([new EchoRequest({ Message: 'a' }), new EchoRequest({ Message: 'b' })]),
      ).to.equal(undefined);
    },
  );
  it('When it sendAll()s GetFlatRequests, then each report comes back for its own request', async () => {
    const responses = await client(t.apiKey).sendAll([
      new GetFlatRequest({
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: '/Date(1704067200000)/',
        EndDate: '/Date(1706659200000)/',
      }),
      new GetFlatRequest({
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: '/Date(1704067200000)/',
        EndDate: '/Date(1709164800000)/',
      }),
    ]);
    expect(responses.map((r) => r.ReportModel.ColumnNames)).to.deep.equal([['Jan 2024'], ['Jan 2024', 'Feb 2024']]);
  });
  it("When an item of its sendAll() fails, then it throws the item's ResponseStatus", async () => {
    const error = await client(t.apiKey)
      .sendAll([new GetFlatRequest({ CompanyId: 1 }), new GetFlatRequest({ CompanyId: 1, Locations: [9999] })])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as { responseStatus?: { errorCode?: string; message?: string } }).responseStatus).to.include({
      errorCode: 'ArgumentException',
      message: 'Location 9999 does not belong to company 1.',
    });
  });
});
