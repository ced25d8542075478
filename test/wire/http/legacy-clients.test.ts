/**
 * What a legacy client still noticed (issue 24), each expected answer the one a real ServiceStack 4.5.14 self-host
 * (release assemblies on Mono 6.8, the spec's DTOs, a UTC server) gave to the same request, sent as the 4.5.14 C#
 * clients (JsonServiceClient, XmlServiceClient, JsvServiceClient, CsvServiceClient) send it; with this service's
 * own values (its company name, its report).
 */
import { expect } from 'chai';
import request from 'supertest';
import { parse as parseCsv } from 'csv-parse/sync';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

const CO = TEST_COMPANY_NAME;
const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';
const JAN_1 = 1735689600000;

/** Each predefined route's format and the Content-Type and Accept its C# client sends. */
const CLIENTS = [
  { format: 'json', type: 'application/json' },
  { format: 'xml', type: 'application/xml' },
  { format: 'jsv', type: 'application/jsv' },
  { format: 'csv', type: 'text/csv' },
] as const;

describe('Legacy clients (as a real 4.5.14 host answered them, issue 24)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  /**
   * A POST as the C# clients send it: Content-Type and Accept of the format, the body as given (Content-Length 0 when
   * empty).
   */
  const post = (path: string, type: string, body: string) => {
    const req = request(t.app).post(path).set('Content-Type', type).set('Accept', type);
    return body === '' ? req.set('Content-Length', '0') : req.send(body);
  };

  describe('an empty request body (Post(url, null)) binds the defaults', () => {
    // The host, to Post<EchoResponse>("/{format}/reply/EchoRequest", null) from each client (query string ignored):
    const echoed: Record<(typeof CLIENTS)[number]['format'], string | RegExp> = {
      json: `{"CompanyName":"${CO}","ResponseStatus":{}}`,
      xml: new RegExp(`<EchoResponse [^>]*><CompanyName>${CO}</CompanyName><Message i:nil="true"/><ResponseStatus>`),
      jsv: `{CompanyName:${CO},ResponseStatus:{}}`,
      csv: `Message,CompanyName,ResponseStatus\r\n,${CO},"{}"\r\n`,
    };
    for (const { format, type } of CLIENTS) {
      it(
        `When /${format}/reply/EchoRequest is posted with no body, then it answers 200 ${type} with the defaults ` +
          `bound`,
        async () => {
          const res = await post(`/${format}/reply/EchoRequest?Message=ignored`, type, '').expect(200);
          expect(res.headers['content-type']).to.match(new RegExp(`^${type}`));
          const expected = echoed[format];
          if (typeof expected === 'string') expect(res.text).to.equal(expected);
          else expect(res.text).to.match(expected);
        },
      );
      it(
        `When /${format}/reply/EchoRequest is posted a body of white space, then it is a 400 ` +
          `SerializationException (as the host refused it)`,
        async () => {
          const res = await post(`/${format}/reply/EchoRequest?format=json`, type, ' ').expect(400);
          expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
          expect(res.body.ResponseStatus.Message).to.match(
            /^Could not deserialize '[a-z/]+' request using EchoRequest: /,
          );
        },
      );
    }
    it(
      'When GetFlatRequest is posted with no body, then the service runs on the defaults and names the missing ' +
        "CompanyId (the host: its service's 400 on CompanyId)",
      async () => {
        const res = await post('/json/reply/GetFlatRequest', 'application/json', '').expect(400);
        expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal([
          'CompanyId',
        ]);
      },
    );
    it(
      'When a body cannot be read, then the 400 says so once ("Could not deserialize …" is not ' + 'repeated)',
      async () => {
        for (const { format, type } of CLIENTS) {
          const res = await post(
            `/${format}/reply/EchoRequest?format=json`,
            type,
            format === 'csv' ? 'Message\r\na,b\r\n' : '{"Message":',
          ).expect(400);
          const message = res.body.ResponseStatus.Message as string;
          expect(message.match(/Could not deserialize/g), message).to.have.length(1);
        }
      },
    );
  });

  describe('CSV request bodies (as CsvServiceClient sends them)', () => {
    const csv = (path: string, body: string) => post(path, 'text/csv', body);
    it(
      'When EchoRequest is sent as a header row and a data row, then it is read (the host: Message\\r\\nhi → ' +
        'hi,…)',
      async () => {
        const res = await csv('/csv/reply/EchoRequest', 'Message\r\nhi\r\n').expect(200);
        expect(res.text).to.equal(`Message,CompanyName,ResponseStatus\r\nhi,${CO},"{}"\r\n`);
      },
    );
    it(
      'When GetFlatRequest is sent with every property as CsvServiceClient writes it, then the report is built ' +
        'from it',
      async () => {
        const body =
          'UseAccountMapping,IncludeComputedColumns,OrderBy,UseCustomDateRange,StartDate,EndDate,CompanyId,' +
          'Filters,Locations\r\n' +
          'False,True,,True,2024-01-01,2024-02-29,1,,"[10,20]"\r\n';
        const res = await csv('/csv/reply/GetFlatRequest?format=json', body).expect(200);
        expect(res.body.SelectedOptions).to.include({
          UseCustomDateRange: true,
          IncludeComputedColumns: true,
          StartDate: '/Date(1704067200000+0000)/',
        });
        expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
      },
    );
    it(
      'When the header names properties in any case and order, with unknown ones, then they are matched by name ' +
        'and the rest ignored',
      async () => {
        const res = await csv('/csv/reply/EchoRequest?format=json', 'Other,message\r\nx,hi\r\n').expect(200);
        expect(res.body.Message).to.equal('hi');
      },
    );
    it(
      'When a cell is quoted, then it may hold commas, quotes and line breaks; "" is the empty string and an ' +
        'unquoted empty cell no value',
      async () => {
        for (const [body, message] of [
          ['Message\r\n"a,""b"""\r\n', 'a,"b"'],
          ['Message\r\n"line\r\nbreak"\r\n', 'line\r\nbreak'],
          ['Message\r\n""\r\n', ''],
          ['Message,Other\r\n,x\r\n', undefined],
        ] as const) {
          const res = await csv('/csv/reply/EchoRequest?format=json', body).expect(200);
          expect(res.body.Message, body).to.equal(message);
        }
      },
    );
    it('When several data rows come, then a single request reads the first (as the host did)', async () => {
      const res = await csv('/csv/reply/EchoRequest?format=json', 'Message\r\nfirst\r\nsecond\r\n').expect(200);
      expect(res.body.Message).to.equal('first');
    });
    for (const [what, body] of [
      ['no data row', 'Message\r\n'],
      ['a row longer than the header', 'Message\r\nhi,extra\r\n'],
    ] as const) {
      it(
        `When the body has ${what}, then it is a 400 SerializationException naming text/csv (the host refused it ` +
          `too)`,
        async () => {
          const res = await csv('/csv/reply/EchoRequest', body).expect(400);
          expect(res.headers['content-type']).to.equal('text/csv');
          expect(res.text).to.match(
            new RegExp(
              String.raw`^ResponseStatus\r\n"\{ErrorCode:SerializationException,` +
                String.raw`Message:""Could not deserialize 'text\/csv' request using EchoRequest: `,
            ),
          );
        },
      );
    }
    it('When a cell is not a value of its property, then it is a 400 naming the field', async () => {
      const res = await csv('/csv/reply/GetFlatRequest?format=json', 'CompanyId\r\nabc\r\n').expect(400);
      expect(res.body.ResponseStatus.Errors[0]).to.include({
        ErrorCode: 'SerializationException',
        FieldName: 'CompanyId',
      });
    });
  });

  describe('CSV cells are quoted as 4.5 quoted them', () => {
    // The host: GET /v1/echo/<m>.csv → these first cells (and ResponseStatus always "{}").
    const cells: [string, string][] = [
      ['line\rbreak', '"line\rbreak"'],
      ['line\nbreak', '"line\nbreak"'],
      ['line\r\nbreak', '"line\r\nbreak"'],
      ['a"b', '"a""b"'],
      ['{x}', '"{x}"'],
      ['[a]', '"[a]"'],
      ['x{', 'x{'],
      ['a b', 'a b'],
    ];
    for (const [message, written] of cells) {
      it(
        `When a message is ${JSON.stringify(message)}, then its cell is ${JSON.stringify(written)} and the row ` +
          `stays one row`,
        async () => {
          const res = await request(t.app)
            .get(`/v1/echo/${encodeURIComponent(message)}.csv`)
            .expect(200);
          expect(res.text).to.equal(`Message,CompanyName,ResponseStatus\r\n${written},${CO},"{}"\r\n`);
          const rows = parseCsv(res.text) as string[][];
          expect(rows).to.have.length(2);
          expect(rows[1]![0]).to.equal(message);
        },
      );
    }
    it('When a formula follows a line break, then it stays inside the quoted cell (no row starts with =)', async () => {
      const res = await request(t.app)
        .get(`/v1/echo/${encodeURIComponent('x\n=1+2')}.csv`)
        .expect(200);
      expect(res.text).to.equal(`Message,CompanyName,ResponseStatus\r\n"x\n=1+2",${CO},"{}"\r\n`);
    });
  });

  describe('dates keep the offset form 4.5 wrote for the kind it read', () => {
    // [how it was sent, JSON the host wrote, XML the host wrote] for StartDate (2025-01-01 unless noted).
    const flat = (query: string, format: string) =>
      request(t.app)
        .get(`${FLAT}?CompanyId=1&UseCustomDateRange=true&EndDate=2025-06-30&format=${format}&${query}`)
        .expect(200);
    const recorded: [string, string, string][] = [
      ['StartDate=2025-01-01', `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      ['StartDate=2025-01-01T00:00:00Z', `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      ['StartDate=2025-01-01T00:00:00', `/Date(${JAN_1}-0000)/`, '2025-01-01T00:00:00'],
      ['StartDate=20250101', `/Date(${JAN_1}-0000)/`, '2025-01-01T00:00:00'],
      [`StartDate=%2FDate(${JAN_1})%2F`, `/Date(${JAN_1})/`, '2025-01-01T00:00:00Z'],
      [`StartDate=%2FDate(${JAN_1}%2B0000)%2F`, `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      [`StartDate=%2FDate(${JAN_1}-0000)%2F`, `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      ['StartDate=Jan%201%202025', `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      ['StartDate=2025-1-1', `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
      ['StartDate=01%2F02%2F2025', '/Date(1738368000000+0000)/', '2025-02-01T00:00:00+00:00'],
    ];
    for (const [query, json, xml] of recorded) {
      it(`When ${query} is sent, then JSON says ${json} and XML ${xml}`, async () => {
        const asJson = await flat(query, 'json');
        expect(asJson.body.SelectedOptions.StartDate).to.equal(json);
        expect(asJson.text).to.contain(`"StartDate":"${json.replace(/\//g, '\\/')}"`);
        expect((await flat(query, 'xml')).text).to.contain(`<StartDate>${xml}</StartDate>`);
      });
    }
    it(
      'When the JSON client posts \\/Date(ms)\\/ (a UTC DateTime) or \\/Date(ms+0000)\\/ (a local one), then each ' +
        'comes back in its form',
      async () => {
        const body =
          `{"CompanyId":1,"UseCustomDateRange":true,"StartDate":"\\/Date(${JAN_1})\\/",` +
          `"EndDate":"\\/Date(1751241600000+0000)\\/"}`;
        const res = await post('/json/reply/GetFlatRequest', 'application/json', body).expect(200);
        expect(res.text).to.contain(`"StartDate":"\\/Date(${JAN_1})\\/","EndDate":"\\/Date(1751241600000+0000)\\/"`);
      },
    );
    it(
      'When the XML client posts xs:dateTime values, then Z stays Z, +00:00 stays +00:00 and no zone stays ' + 'none',
      async () => {
        const body = (start: string) =>
          `<GetFlatRequest ` +
          `xmlns="http://schemas.servicestack.net/types"><CompanyId>1</CompanyId><EndDate>` +
          `2025-06-30T00:00:00Z</EndDate><StartDate>${start}</StartDate><UseCustomDateRange>` +
          `true</UseCustomDateRange></GetFlatRequest>`;
        for (const [start, json, xml] of [
          ['2025-01-01T00:00:00Z', `/Date(${JAN_1})/`, '2025-01-01T00:00:00Z'],
          ['2025-01-01T00:00:00+00:00', `/Date(${JAN_1}+0000)/`, '2025-01-01T00:00:00+00:00'],
          ['2025-01-01T00:00:00', `/Date(${JAN_1}-0000)/`, '2025-01-01T00:00:00'],
          ['2025-01-01', `/Date(${JAN_1}-0000)/`, '2025-01-01T00:00:00'],
        ]) {
          const asXml = await post('/xml/reply/GetFlatRequest', 'application/xml', body(start!)).expect(200);
          expect(asXml.text, start).to.contain(`<StartDate>${xml}</StartDate>`);
          const asJson = await post('/xml/reply/GetFlatRequest?format=json', 'application/xml', body(start!)).expect(
            200,
          );
          expect(asJson.body.SelectedOptions.StartDate, start).to.equal(json);
        }
      },
    );
    it(
      'When JSV, CSV or form bodies carry 2025-01-01 or /Date(ms)/, then they are Local (+0000) and UTC (no ' +
        'offset) as from the query',
      async () => {
        const cases = [
          [
            '/jsv/reply/GetFlatRequest?format=json',
            'application/jsv',
            (d: string) => `{CompanyId:1,UseCustomDateRange:True,StartDate:${d},EndDate:2025-06-30}`,
          ],
          [
            '/csv/reply/GetFlatRequest?format=json',
            'text/csv',
            (d: string) => `CompanyId,UseCustomDateRange,StartDate,EndDate\r\n1,True,${d},2025-06-30\r\n`,
          ],
          [
            '/json/reply/GetFlatRequest',
            'application/x-www-form-urlencoded',
            (d: string) => `CompanyId=1&UseCustomDateRange=true&StartDate=${encodeURIComponent(d)}&EndDate=2025-06-30`,
          ],
        ] as const;
        for (const [path, type, body] of cases) {
          expect(
            (await post(path, type, body('2025-01-01')).expect(200)).body.SelectedOptions.StartDate,
            type,
          ).to.equal(`/Date(${JAN_1}+0000)/`);
          expect(
            (await post(path, type, body(`/Date(${JAN_1})/`)).expect(200)).body.SelectedOptions.StartDate,
            type,
          ).to.equal(`/Date(${JAN_1})/`);
        }
      },
    );
    it(
      'When ?jsconfig=DateHandler:ISO8601 asks for ISO dates, then the zone follows the kind (+00:00, Z or ' + 'none)',
      async () => {
        for (const [query, iso] of [
          ['StartDate=2025-01-01', '2025-01-01T00:00:00.0000000+00:00'],
          [`StartDate=%2FDate(${JAN_1})%2F`, '2025-01-01T00:00:00.0000000Z'],
          ['StartDate=20250101', '2025-01-01T00:00:00.0000000'],
        ]) {
          const res = await flat(`${query}&jsconfig=DateHandler:ISO8601`, 'json');
          expect(res.body.SelectedOptions.StartDate, query).to.equal(iso);
        }
      },
    );
    it(
      'When JSV is asked for, then a date at midnight is yyyy-MM-dd whatever its kind (the host: ' +
        'StartDate:2025-01-01)',
      async () => {
        for (const query of ['StartDate=2025-01-01', `StartDate=%2FDate(${JAN_1})%2F`, 'StartDate=20250101']) {
          expect((await flat(query, 'jsv')).text, query).to.contain('StartDate:2025-01-01,');
        }
      },
    );
  });

  describe('deliberate deviations (README: "Deliberate deviations"), each beside the host\'s answer', () => {
    it('When HEAD is sent to a GET route, then it is answered like GET without a body (the host: 404)', async () => {
      const res = await request(t.app).head('/v1/echo/hi').expect(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.text).to.equal(undefined);
    });
    for (const [message, cell] of [
      ['=1', "'=1"],
      ['-5', "'-5"],
      ['@sum', "'@sum"],
    ]) {
      it(
        `When a CSV text cell starts like a formula (${message}), then it gets an apostrophe (the ` +
          `host: ${message} as it was)`,
        async () => {
          const res = await request(t.app)
            .get(`/v1/echo/${encodeURIComponent(message!)}.csv`)
            .expect(200);
          expect(res.text).to.equal(`Message,CompanyName,ResponseStatus\r\n${cell},${CO},"{}"\r\n`);
        },
      );
    }
    it(
      'When a date carries a time, then only its calendar date is used (the host: /Date(1735727400000+0000)/ for ' +
        '10:30Z)',
      async () => {
        const res = await request(t.app)
          .get(`${FLAT}?CompanyId=1&UseCustomDateRange=true&StartDate=2025-01-01T10:30:00Z&EndDate=2025-06-30`)
          .expect(200);
        expect(res.body.SelectedOptions.StartDate).to.equal(`/Date(${JAN_1}+0000)/`);
      },
    );
    it(
      'When a CSV body has an unterminated quote, then it is a 400 (the host read "unterminated\\r" and answered ' +
        '200)',
      async () => {
        const res = await post('/csv/reply/EchoRequest?format=json', 'text/csv', 'Message\r\n"unterminated\r\n').expect(
          400,
        );
        expect(res.body.ResponseStatus.Message).to.match(
          /^Could not deserialize 'text\/csv' request using EchoRequest: /,
        );
      },
    );
  });
});
