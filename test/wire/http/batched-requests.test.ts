/**
 * Batched requests (issue 24 item 1): `POST /{format}/reply/{Op}[]` and `/{format}/oneway/{Op}[]`, an array of
 * requests answered by an array of responses. Every expected answer is the one a real ServiceStack 4.5.14 self-host
 * (the spec's DTOs, on Mono) gave to the same request, sent as its C# clients' SendAll / SendAllOneWay send it (bodies
 * recorded byte for byte), with this service's own values (its company name, its report, its errors).
 * test/system/clients/servicestack-client.test.ts drives @servicestack/client's `sendAll` / `sendAllOneWay`.
 */
import { expect } from 'chai';
import request from 'supertest';
import { xmlComparer } from '../../../packages/migration-tools/src/compare/comparers/xml.ts';
import { compareBodies } from '../../../packages/migration-tools/src/compare/comparers/registry.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

/** The 4.5.14 host's company name, so its answers compare byte for byte. */
const CO = 'Reporting Service';
const XSI = 'xmlns:i="http://www.w3.org/2001/XMLSchema-instance"';
const TYPES = 'xmlns="http://schemas.servicestack.net/types"';
// The host also wrote a nil `<Meta xmlns:d4p1="…/Arrays" i:nil="true" />`, which this service's XML writer leaves out
// of every ResponseStatus (batch or not; ResponseStatus.Meta is no member of wsdl/types.xsd's ResponseStatus).
const NIL_STATUS =
  '<ResponseStatus><ErrorCode i:nil="true" /><Message i:nil="true" /><StackTrace i:nil="true" /><Errors ' +
  'i:nil="true" /></ResponseStatus>';
const echoXml = (m: string) =>
  `<EchoResponse><CompanyName>${CO}</CompanyName><Message>${m}</Message>${NIL_STATUS}</EchoResponse>`;

/** SendAll's two-item batch in each format, as the C# clients wrote it, and the host's answer. */
const BATCHES = [
  {
    format: 'json',
    type: 'application/json',
    contentType: 'application/json; charset=utf-8',
    body: '[{"Message":"a"},{"Message":"b"}]',
    answer:
      `[{"Message":"a","CompanyName":"${CO}","ResponseStatus":{}},{"Message":"b","CompanyName":"${CO}",` +
      `"ResponseStatus":{}}]`,
    empty: '[]',
    emptyAnswer: '[]',
  },
  {
    format: 'xml',
    type: 'application/xml',
    contentType: 'application/xml',
    body:
      `\ufeff<ArrayOfEchoRequest ${XSI} ${TYPES}><EchoRequest><Message>a</Message></EchoRequest><EchoRequest>` +
      `<Message>b</Message></EchoRequest></ArrayOfEchoRequest>`,
    answer:
      `<?xml version="1.0" ` +
      `encoding="utf-8"?>` +
      `<ArrayOfEchoResponse ${XSI} ${TYPES}>${echoXml('a')}${echoXml('b')}</ArrayOfEchoResponse>`,
    empty: `\ufeff<ArrayOfEchoRequest ${XSI} ${TYPES} />`,
    emptyAnswer:
      `<?xml version="1.0" encoding="utf-8"?><ArrayOfanyType ${XSI} ` +
      `xmlns="http://schemas.microsoft.com/2003/10/Serialization/Arrays" />`,
  },
  {
    format: 'jsv',
    type: 'application/jsv',
    contentType: 'application/jsv',
    body: '[{Message:a},{Message:b}]',
    answer: `[{Message:a,CompanyName:${CO},ResponseStatus:{}},{Message:b,CompanyName:${CO},ResponseStatus:{}}]`,
    empty: '[]',
    emptyAnswer: '[]',
  },
  {
    format: 'csv',
    type: 'text/csv',
    contentType: 'text/csv',
    body: 'Message\r\na\r\nb\r\n',
    answer: `Message,CompanyName,ResponseStatus\r\na,${CO},"{}"\r\nb,${CO},"{}"\r\n`,
    empty: 'Message\r\n',
    emptyAnswer: '',
  },
] as const;

/**
 * The host's body, compared as its format's reader reads it: XML namespace-aware (DataContractSerializer numbers
 * prefixes by depth), the rest byte for byte.
 */
function expectBody(format: string, actual: string, expected: string): void {
  if (format !== 'xml') return void expect(actual).to.equal(expected);
  const comparison = compareBodies(xmlComparer, expected, actual);
  expect(comparison.diffs, actual).to.deep.equal([]);
}

describe('Batched requests /{format}/reply|oneway/{Op}[] (as a real 4.5.14 host answered them, issue 24)', () => {
  let t: ListeningTestApp;
  before(async () => (t = await listenTestApp({ companyName: CO })));
  after(() => t.close());

  /** A POST as the C# clients send it: Content-Type and Accept of the format. */
  const post = (path: string, type: string, body: string) => {
    const req = request(t.app).post(path).set('Content-Type', type).set('Accept', type);
    return body === '' ? req.set('Content-Length', '0') : req.send(body);
  };

  for (const batch of BATCHES) {
    for (const route of ['reply', 'oneway']) {
      it(
        `When SendAll${route === 'oneway' ? 'OneWay' : ''} posts two EchoRequests to ` +
          `/${batch.format}/${route}/EchoRequest[], then it answers 200 with both responses and ` +
          `X-AutoBatch-Completed: 2`,
        async () => {
          const res = await post(`/${batch.format}/${route}/EchoRequest[]`, batch.type, batch.body).expect(200);
          expect(res.headers['content-type']).to.equal(batch.contentType);
          expect(res.headers['x-autobatch-completed']).to.equal('2');
          expectBody(batch.format, res.text, batch.answer);
          if (batch.format === 'csv')
            expect(res.headers['content-disposition']).to.equal('attachment;filename=EchoRequest[].csv');
        },
      );
    }
    it(
      `When an empty batch is posted to /${batch.format}/reply/EchoRequest[], then it answers 200 with the host's ` +
        `empty list and no X-AutoBatch-Completed`,
      async () => {
        const res = await post(`/${batch.format}/reply/EchoRequest[]`, batch.type, batch.empty).expect(200);
        expect(res.headers['content-type']).to.equal(batch.contentType);
        expect(res.headers).not.to.have.property('x-autobatch-completed');
        expect(res.headers).not.to.have.property('content-disposition');
        expectBody(batch.format, res.text, batch.emptyAnswer);
      },
    );
  }

  it(
    'When an empty body (Content-Length: 0) is posted to /json/reply/EchoRequest[], then it is an empty batch: ' +
      '200 [] (the host)',
    async () => {
      const res = await post('/json/reply/EchoRequest[]', 'application/json', '').expect(200);
      expect(res.text).to.equal('[]');
    },
  );

  it(
    'When GetFlatRequests are posted in every client format, then each item is bound as one request is (dates, ' +
      'lists, CSV cells)',
    async () => {
      // The recorded SendAll bodies of one GetFlatRequest (the host answered 200 with X-AutoBatch-Completed: 1).
      const bodies = [
        [
          'json',
          'application/json',
          '[{"UseAccountMapping":false,"IncludeComputedColumns":false,"UseCustomDateRange":true,' +
            '"StartDate":"\\/Date(1704067200000)\\/","EndDate":"\\/Date(1709164800000)\\/","CompanyId":1}]',
        ],
        [
          'xml',
          'application/xml',
          `\ufeff<ArrayOfGetFlatRequest ${XSI} ${TYPES}><GetFlatRequest><CompanyId>1</CompanyId><EndDate>` +
            `2024-02-29T00:00:00Z</EndDate><Filters ` +
            `xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays" i:nil="true" ` +
            `/><IncludeComputedColumns>false</IncludeComputedColumns><Locations ` +
            `xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><d3p1:int>10</d3p1:int><d3p1:int>` +
            `20</d3p1:int></Locations><OrderBy i:nil="true" ` +
            `/><StartDate>2024-01-01T00:00:00Z</StartDate><UseAccountMapping>false</UseAccountMapping>` +
            `<UseCustomDateRange>true</UseCustomDateRange></GetFlatRequest></ArrayOfGetFlatRequest>`,
        ],
        [
          'jsv',
          'application/jsv',
          '[{UseAccountMapping:False,IncludeComputedColumns:False,UseCustomDateRange:True,StartDate:2024-01-01,' +
            'EndDate:2024-02-29,CompanyId:1,Locations:[10,20]}]',
        ],
        [
          'csv',
          'text/csv',
          'UseAccountMapping,IncludeComputedColumns,OrderBy,UseCustomDateRange,StartDate,EndDate,CompanyId,' +
            'Filters,Locations\r\nFalse,False,,True,2024-01-01,2024-02-29,1,,"[10,20]"\r\n',
        ],
      ] as const;
      for (const [format, type, body] of bodies) {
        const res = await post(`/${format}/reply/GetFlatRequest[]?format=json`, type, body).expect(200);
        expect(res.headers['x-autobatch-completed'], format).to.equal('1');
        expect(res.body, format).to.have.length(1);
        expect(res.body[0].SelectedOptions, format).to.include({ UseCustomDateRange: true });
        expect(res.body[0].SelectedOptions.StartDate, format).to.match(/^\/Date\(1704067200000/);
        expect(res.body[0].ReportModel.ColumnNames, format).to.deep.equal(['Jan 2024', 'Feb 2024']);
      }
    },
  );

  describe('the first error stops the batch', () => {
    // The host, to [{CompanyId:1},{CompanyId:0},{CompanyId:2}] in each format: 400 ArgumentException, its service's
    // error
    // for item 1 in the error's form of the format, X-AutoBatch-Completed: 1, CSV as the download GetFlatRequest[].csv;
    // the third item never ran. Here item 1 names a location company 1 does not have: this service's 400
    // ArgumentException.
    const failing = [
      ['json', 'application/json', '[{"CompanyId":1},{"CompanyId":1,"Locations":[9999]},{"CompanyId":2}]'],
      [
        'xml',
        'application/xml',
        `<ArrayOfGetFlatRequest ${XSI} ${TYPES}><GetFlatRequest><CompanyId>1</CompanyId></GetFlatRequest>` +
          `<GetFlatRequest><CompanyId>1</CompanyId><Locations ` +
          `xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><d3p1:int>9999</d3p1:int>` +
          `</Locations></GetFlatRequest><GetFlatRequest><CompanyId>2</CompanyId></GetFlatRequest>` +
          `</ArrayOfGetFlatRequest>`,
      ],
      ['jsv', 'application/jsv', '[{CompanyId:1},{CompanyId:1,Locations:[9999]},{CompanyId:2}]'],
      ['csv', 'text/csv', 'CompanyId,Locations\r\n1,\r\n1,"[9999]"\r\n2,\r\n'],
    ] as const;
    const M = 'Location 9999 does not belong to company 1.';
    const answers: Record<string, string> = {
      // host: {"ResponseStatus":{"ErrorCode":"ArgumentException","Message":"'Company Id' must be greater than
      // '0'.\nParameter name:
      // CompanyId","Errors":[{"ErrorCode":"ArgumentException","FieldName":"CompanyId","Message":"…"}]}}
      json:
        `{"ResponseStatus":{"ErrorCode":"ArgumentException","Message":"${M}","Errors":[{"ErrorCode":"NotFound",` +
        `"FieldName":"Locations","Message":"${M}"}]}}`,
      // host: <?xml …?><ErrorResponse
      // …><ResponseStatus><ErrorCode>ArgumentException</ErrorCode><Message>…</Message><StackTrace i:nil="true"
      // /><Errors><ResponseError>…</ResponseError></Errors><Meta … i:nil="true" /></ResponseStatus></ErrorResponse>
      xml:
        `<?xml version="1.0" ` +
        `encoding="utf-8"?><ErrorResponse ${XSI} ${TYPES}><ResponseStatus><ErrorCode>ArgumentException</ErrorCode>` +
        `<Message>${M}</Message><StackTrace i:nil="true" ` +
        `/><Errors><ResponseError><ErrorCode>NotFound</ErrorCode><FieldName>Locations</FieldName>` +
        `<Message>${M}</Message></ResponseError></Errors></ResponseStatus></ErrorResponse>`,
      // host:
      // {ResponseStatus:{ErrorCode:ArgumentException,Message:"…",
      //   Errors:[{ErrorCode:ArgumentException,FieldName:CompanyId,Message:"…"}]}}
      jsv:
        `{ResponseStatus:{ErrorCode:ArgumentException,Message:${M},Errors:[{ErrorCode:NotFound,` +
        `FieldName:Locations,Message:${M}}]}}`,
      // host: ResponseStatus\r\n"{ErrorCode:ArgumentException,Message:""…"",Errors:[…]}"\r\n
      csv:
        `ResponseStatus\r\n"{ErrorCode:ArgumentException,Message:${M},Errors:[{ErrorCode:NotFound,` +
        `FieldName:Locations,Message:${M}}]}"\r\n`,
    };
    for (const [format, type, body] of failing) {
      for (const route of ['reply', 'oneway']) {
        it(
          `When item 1 of a /${format}/${route}/GetFlatRequest[] batch fails, then its error is the answer: 400 ` +
            `with X-AutoBatch-Completed: 1`,
          async () => {
            const res = await post(`/${format}/${route}/GetFlatRequest[]`, type, body).expect(400);
            expect(res.headers['x-autobatch-completed']).to.equal('1');
            expectBody(format, res.text, answers[format]!);
            if (format === 'csv')
              expect(res.headers['content-disposition']).to.equal('attachment;filename=GetFlatRequest[].csv');
          },
        );
      }
    }
    it('When the first item fails, then X-AutoBatch-Completed is 0 (the host)', async () => {
      const res = await post(
        '/json/reply/GetFlatRequest[]',
        'application/json',
        '[{"CompanyId":1,"Locations":[9999]},{"CompanyId":1}]',
      ).expect(400);
      expect(res.headers['x-autobatch-completed']).to.equal('0');
    });
  });

  describe('the answers of a batch are bounded in bytes (MAX_BATCH_ANSWER_BYTES)', () => {
    // Each EchoResponse `{"Message":"a","CompanyName":"Reporting Service","ResponseStatus":{}}` is 66 bytes of JSON: a
    // list of two takes 135 bytes, of three 202.
    let small: ListeningTestApp;
    before(async () => (small = await listenTestApp({ companyName: CO, config: { maxBatchAnswerBytes: 150 } })));
    after(() => small.close());
    const echoBatch = (count: number, format = 'json') =>
      request(small.app)
        .post(`/${format}/reply/EchoRequest[]`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(Array.from({ length: count }, (_, i) => ({ Message: String.fromCharCode(97 + i) }))));

    it('When the answers stay within the limit, then 200 with all of them', async () => {
      const res = await echoBatch(2).expect(200);
      expect(res.body).to.have.length(2);
      expect(res.headers['x-autobatch-completed']).to.equal('2');
    });

    it(
      'When an answer takes the total past the limit, then 400 ArgumentException naming the limit, ' +
        'X-AutoBatch-Completed at that request',
      async () => {
        const res = await echoBatch(5).expect(400);
        expect(res.headers['x-autobatch-completed']).to.equal('2');
        expect(res.body).to.deep.equal({
          ResponseStatus: {
            ErrorCode: 'ArgumentException',
            Message:
              "The batch's answers pass the limit of 150 bytes (MAX_BATCH_ANSWER_BYTES) at request 2: " +
              'send fewer requests per batch.',
            Errors: [],
          },
        });
      },
    );
  });

  describe("MAX_BATCH_ANSWER_BYTES counts the answer's list as written in its format", () => {
    /** A batch of EchoRequests in each format's body, its answer in that format (JSON also wrapped as JSONP). */
    const bodies: Record<string, (messages: string[]) => string> = {
      json: (messages) => JSON.stringify(messages.map((Message) => ({ Message }))),
      xml: (messages) =>
        `<ArrayOfEchoRequest ${TYPES}>` +
        messages.map((m) => `<EchoRequest><Message>${m}</Message></EchoRequest>`).join('') +
        '</ArrayOfEchoRequest>',
      jsv: (messages) => `[${messages.map((m) => `{Message:${m}}`).join(',')}]`,
      csv: (messages) => `Message\r\n${messages.map((m) => `${m}\r\n`).join('')}`,
    };
    const cases = [
      ...BATCHES.map(({ format, type }) => ({ format, type, query: '' })),
      { format: 'json', type: 'application/json', query: '?callback=cb' },
    ];
    for (const { format, type, query } of cases) {
      it(`${format}${query}: a list at the limit to the byte is answered, a byte longer is not`, async () => {
        const send = (app: ListeningTestApp['app'], messages: string[]) =>
          request(app)
            .post(`/${format}/reply/EchoRequest[]${query}`)
            .set('Content-Type', type)
            .send(bodies[format]!(messages));
        const unbounded = await listenTestApp({ companyName: CO });
        const size = Number((await send(unbounded.app, ['a', 'b', 'c']).expect(200)).headers['content-length']);
        await unbounded.close();
        const bounded = await listenTestApp({ companyName: CO, config: { maxBatchAnswerBytes: size } });
        try {
          const full = await send(bounded.app, ['a', 'b', 'c']).expect(200);
          expect(full.headers['content-length']).to.equal(String(size));
          const over = await send(bounded.app, ['a', 'b', 'cc']).expect(400);
          expect(over.headers['x-autobatch-completed']).to.equal('2');
        } finally {
          await bounded.close();
        }
      });
    }
  });

  describe('a batch that cannot be read is refused whole, before any item runs (no X-AutoBatch-Completed)', () => {
    it(
      'When an item is not an object, then 400 SerializationException naming the item (the host: 400, no ' + 'header)',
      async () => {
        const res = await post('/json/reply/EchoRequest[]', 'application/json', '[{"Message":"a"},5]').expect(400);
        expect(res.headers).not.to.have.property('x-autobatch-completed');
        expect(res.body.ResponseStatus).to.include({ ErrorCode: 'SerializationException' });
        expect(res.body.ResponseStatus.Message).to.equal(
          "Could not deserialize 'application/json' request using EchoRequest[]: request 1 of the batch is not " +
            'an object',
        );
      },
    );
    it(
      'When an item has a value the binder cannot read, then 400 naming the field as [index].Field (deviation: ' +
        'the host dropped the value and ran the batch)',
      async () => {
        const res = await post(
          '/json/reply/GetFlatRequest[]',
          'application/json',
          '[{"CompanyId":1},{"CompanyId":"abc"}]',
        ).expect(400);
        expect(res.headers).not.to.have.property('x-autobatch-completed');
        expect(res.body.ResponseStatus.Errors).to.deep.equal([
          {
            ErrorCode: 'SerializationException',
            FieldName: '[1].CompanyId',
            Message: "'abc' is an Invalid value for 'CompanyId'",
          },
        ]);
      },
    );
    it(
      "When an item breaks the contract, then express-openapi-validator's 400 names the field as " + '[index].Field',
      async () => {
        const res = await post(
          '/json/reply/GetFlatRequest[]',
          'application/json',
          '[{"CompanyId":1},{"CompanyId":1,"OrderBy":"Nope"}]',
        ).expect(400);
        expect(res.headers).not.to.have.property('x-autobatch-completed');
        expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal([
          '[1].OrderBy',
        ]);
      },
    );
    it('When the body is one object, not a list, then 400 (deviation: the host ran it as a batch of one)', async () => {
      const res = await post('/json/reply/EchoRequest[]', 'application/json', '{"Message":"a"}').expect(400);
      expect(res.body.ResponseStatus.Message).to.match(/must be a JSON array of requests$/);
    });
    it('When the XML root is not ArrayOf{Op}, then 400 naming what was expected', async () => {
      const res = await post(
        '/xml/reply/EchoRequest[]?format=json',
        'application/xml',
        `<EchoRequest ${TYPES}><Message>a</Message></EchoRequest>`,
      ).expect(400);
      expect(res.body.ResponseStatus.Message).to.match(
        /expected the root element ArrayOfEchoRequest, got EchoRequest$/,
      );
    });
  });
});
