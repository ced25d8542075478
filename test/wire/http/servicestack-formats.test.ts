/**
 * Every built-in format, predefined route and request body of ServiceStack 4.5, side by side with a real
 * ServiceStack 4.5.14 self-host (issue 10, groups 1 and 2): the expected answers are what that host answered, with
 * this service's own values (its EchoResponse carries `ResponseStatus: {}` and the caller's company name).
 */
import { expect } from 'chai';
import request from 'supertest';
import { parse as parseCsv } from 'csv-parse/sync';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';
const CO = TEST_COMPANY_NAME;

describe('ServiceStack 4.5 formats (as a real 4.5.14 host answered)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  describe('JSV (application/jsv)', () => {
    for (const [how, send] of [
      ['the .jsv suffix', () => request(t.app).get('/v1/echo/hello.jsv')],
      ['?format=jsv', () => request(t.app).get('/v1/echo/hello?format=jsv')],
      ['Accept: application/jsv', () => request(t.app).get('/v1/echo/hello').set('Accept', 'application/jsv')],
      ['/jsv/reply/EchoRequest', () => request(t.app).get('/jsv/reply/EchoRequest?Message=hello')],
      ['/jsv/oneway/EchoRequest', () => request(t.app).get('/jsv/oneway/EchoRequest?Message=hello')],
    ] as const) {
      it(`by ${how}: {Message:hello,CompanyName:…}`, async () => {
        const res = await send().expect(200);
        expect(res.headers['content-type']).to.equal('application/jsv');
        expect(res.text).to.equal(`{Message:hello,CompanyName:${CO},ResponseStatus:{}}`);
      });
    }
    it('quotes a string holding , " : { } [ ] and doubles its quotes', async () => {
      const res = await request(t.app)
        .get(`/v1/echo/${encodeURIComponent('a,b"c:d e')}.jsv`)
        .expect(200);
      expect(res.text).to.equal(`{Message:"a,b""c:d e",CompanyName:${CO},ResponseStatus:{}}`);
    });
    it(
      'the report: nested objects, True/False, dates at midnight as yyyy-MM-dd, GUIDs and lists bare, a URL ' +
        'quoted',
      async () => {
        const res = await request(t.app)
          .get(
            `${FLAT}.jsv?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-01-31&` +
              `Filters=0a1b2c3d4e5f60718293a4b5c6d7e8f9&Locations=10`,
          )
          .expect(200);
        expect(res.text).to.match(
          new RegExp(
            String.raw`^\{Url:"http:\/\/[^"]+",` +
              String.raw`SelectedOptions:\{ReportType:ProfitAndLoss,DateFrequency:Monthly,UseAccountMapping:False,`,
          ),
        );
        expect(res.text).to.contain(
          'StartDate:2024-01-01,EndDate:2024-01-31,Filters:[0a1b2c3d4e5f60718293a4b5c6d7e8f9],Locations:[10]}',
        );
      },
    );
    it('an error raised before the service is the ErrorResponse in JSV, with its status', async () => {
      const res = await request(t.app).get(`${FLAT}.jsv?CompanyId=abc`).expect(400);
      expect(res.text).to.equal(
        '{ResponseStatus:{ErrorCode:SerializationException,Message:Unable to bind to request ' +
          "'GetFlatRequest',Errors:[{ErrorCode:SerializationException,FieldName:CompanyId,Message:'abc' is an " +
          "Invalid value for 'CompanyId'}]}}",
      );
    });
  });

  describe('CSV (text/csv)', () => {
    for (const [how, send] of [
      ['the .csv suffix', () => request(t.app).get('/v1/echo/hello.csv')],
      ['?format=csv', () => request(t.app).get('/v1/echo/hello?format=csv')],
      ['Accept: text/csv', () => request(t.app).get('/v1/echo/hello').set('Accept', 'text/csv')],
      ['/csv/reply/EchoRequest', () => request(t.app).get('/csv/reply/EchoRequest?Message=hello')],
      ['/csv/oneway/EchoRequest', () => request(t.app).get('/csv/oneway/EchoRequest?Message=hello')],
    ] as const) {
      it(
        `by ${how}: a header row of the DTO's properties, then its values, as the download ` + `EchoRequest.csv`,
        async () => {
          const res = await send().expect(200);
          expect(res.headers['content-type']).to.equal('text/csv');
          expect(res.headers['content-disposition']).to.equal('attachment;filename=EchoRequest.csv');
          // 4.5 quoted a cell starting with { (issue 24)
          expect(res.text).to.equal(`Message,CompanyName,ResponseStatus\r\nhello,${CO},"{}"\r\n`);
        },
      );
    }
    it('nested values are JSV, quoted as CSV needs', async () => {
      const res = await request(t.app)
        .get(`${FLAT}.csv?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-01-31`)
        .expect(200);
      expect(res.headers['content-disposition']).to.equal('attachment;filename=GetFlatRequest.csv');
      const [header, row] = parseCsv(res.text) as string[][];
      expect(header).to.deep.equal(['Url', 'SelectedOptions', 'ReportModel']);
      expect(row![1]).to.match(
        /^\{ReportType:ProfitAndLoss,DateFrequency:Monthly,.*StartDate:2024-01-01,EndDate:2024-01-31/,
      );
    });
    it('an error raised before the service: the ErrorResponse, its JSV in one column, no download name', async () => {
      const res = await request(t.app).get(`${FLAT}.csv?CompanyId=abc`).expect(400);
      expect(res.headers['content-type']).to.equal('text/csv');
      expect(res.headers['content-disposition']).to.equal(undefined);
      expect(res.text).to.equal(
        'ResponseStatus\r\n"{ErrorCode:SerializationException,Message:Unable to bind to request ' +
          "'GetFlatRequest',Errors:[{ErrorCode:SerializationException,FieldName:CompanyId,Message:'abc' is an " +
          "Invalid value for 'CompanyId'}]}\"\r\n",
      );
    });
    it(
      'an unknown operation on /csv/reply is 405 in CSV (quoted: 4.5 left this one row unquoted, which splits it ' +
        'at its commas)',
      async () => {
        const res = await request(t.app).get('/csv/reply/Nope').expect(405);
        expect(res.text).to.equal(
          "ResponseStatus\r\n\"{ErrorCode:NotImplementedException,Message:The operation 'Nope' does not exist " +
            'for this service}"\r\n',
        );
      },
    );
  });

  describe('HTML snapshot (text/html)', () => {
    for (const [how, send] of [
      ['the .html suffix', () => request(t.app).get('/v1/echo/hello.html')],
      ['?format=html', () => request(t.app).get('/v1/echo/hello?format=html')],
      [
        'a browser Accept header',
        () =>
          request(t.app)
            .get('/v1/echo/hello')
            .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'),
      ],
      ['/html/reply/EchoRequest', () => request(t.app).get('/html/reply/EchoRequest?Message=hello')],
    ] as const) {
      it(`by ${how}: the snapshot page of the DTO`, async () => {
        const res = await send().expect(200);
        expect(res.headers['content-type']).to.match(/^text\/html/);
        expect(res.text).to.match(/<title>EchoRequest Snapshot of \d\d\/\d\d\/\d{4}<\/title>/);
        expect(res.text).to.contain('<h1>Snapshot of <i>EchoRequest</i>');
        expect(res.text).to.contain(
          `<dt class="ib">Message</dt><dd>hello</dd>\n<dt class="ib">Company Name</dt><dd>${CO}</dd>`,
        );
        expect(res.text).to.match(/<a href="[^"]*format=json">json<\/a>/);
        expect(res.headers['content-security-policy']).to.contain("default-src 'none'");
      });
    }
    it('escapes every value (4.5 put them into innerHTML as they were)', async () => {
      const res = await request(t.app)
        .get(`/v1/echo/${encodeURIComponent('<script>x</script>')}.html`)
        .expect(200);
      expect(res.text).not.to.contain('<script>x');
      expect(res.text).to.contain('&lt;script&gt;x&lt;/script&gt;');
    });
  });

  describe('Accept preference, as the host chose', () => {
    const JSON_TYPE = 'application/json; charset=utf-8';
    // [Accept, request Content-Type or '', the type answered]: every one the 4.5.14 host's answer (issue 38 ran it
    // again beside this service). Its GetResponseContentType: a preferred type (JSON, HTML, XML, JSV) named anywhere
    // wins, in that order whatever Accept's order and q-values, the request body's own type first; then */* gives the
    // body's type, else JSON; then CSV by prefix, in Accept's order; else JSON.
    const cases: [string, string, string][] = [
      ['*/*', '', JSON_TYPE],
      ['application/json, text/html', '', JSON_TYPE],
      ['text/csv, application/json', '', JSON_TYPE],
      ['application/xml, text/html', '', 'text/html'],
      ['application/jsv;q=0.5, application/xml', '', 'application/xml'],
      ['application/json;q=0.1, application/xml;q=1', '', JSON_TYPE],
      ['application/xml, application/json', '', JSON_TYPE],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '', 'text/html'],
      ['text/html, */*', '', 'text/html'],
      ['APPLICATION/XML', '', 'application/xml'],
      // Issue 38: CSV listed with */*, in any order and with any q-values, was JSON on the host.
      ['text/csv, */*;q=0.1', '', JSON_TYPE],
      ['*/*;q=0.1, text/csv', '', JSON_TYPE],
      ['text/csv;q=1.0, */*;q=0.01', '', JSON_TYPE],
      ['*/*, text/csv;q=0.9', '', JSON_TYPE],
      ['text/csv, */*', '', JSON_TYPE],
      ['text/csv;q=0.9, */*;q=1', '', JSON_TYPE],
      ['TEXT/CSV, */*', '', JSON_TYPE],
      ['text/csv;charset=utf-8, */*', '', JSON_TYPE],
      ['text/csv,*/*;q=0.1', '', JSON_TYPE],
      ['*/*;q=0', '', JSON_TYPE],
      ['text/csv, */*;q=0.1, application/xml;q=0.2', '', 'application/xml'],
      ['application/xml;q=0, */*', '', 'application/xml'],
      ['*/*, application/jsv;q=0.1', '', 'application/jsv'],
      ['application/jsv, text/csv', '', 'application/jsv'],
      ['text/csv, application/xml', '', 'application/xml'],
      ['text/csv', '', 'text/csv'],
      ['Text/Csv', '', 'text/csv'],
      ['text/csv, text/*', '', 'text/csv'],
      ['text/csv, text/plain', '', 'text/csv'],
      ['application/x-unknown,text/csv', '', 'text/csv'],
      // .NET Framework skipped the one space after a comma when it listed Accept (ParseMultivalueHeader), so this is
      // CSV there; the Mono host kept the space (` text/csv` matched nothing) and answered JSON. Two spaces: JSON on
      // both.
      ['application/x-unknown, text/csv', '', 'text/csv'],
      ['application/x-unknown,  text/csv', '', JSON_TYPE],
      ['application/x-unknown', '', JSON_TYPE],
      ['image/png', '', JSON_TYPE],
      ['text/*', '', JSON_TYPE],
      ['application/*', '', JSON_TYPE],
      ['text/jsv', '', JSON_TYPE],
      ['text/plain, */*', '', JSON_TYPE],
      // The request's own Content-Type (4.5.14 read it on a GET too).
      ['text/csv, */*', 'application/xml', 'application/xml'],
      ['*/*', 'application/jsv', 'application/jsv'],
      ['*/*', 'text/csv', 'text/csv'],
      ['text/csv, */*', 'application/x-www-form-urlencoded', JSON_TYPE],
      ['application/json, application/xml', 'application/xml', 'application/xml'],
      ['text/html, application/xml', 'application/xml', 'application/xml'],
      ['text/csv', 'application/xml', 'text/csv'],
      ['application/x-unknown', 'application/xml', JSON_TYPE],
    ];
    for (const [accept, contentType, type] of cases) {
      it(`Accept: ${accept}${contentType && ` (Content-Type ${contentType})`} → ${type}`, async () => {
        const req = request(t.app).get('/v1/echo/hi').set('Accept', accept);
        const res = await (contentType ? req.set('Content-Type', contentType) : req).expect(200);
        expect(res.headers['content-type']).to.match(new RegExp(`^${type.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      });
    }
    it('deviation: Accept text/plain, or */* and a text/plain body, is skipped (the next format or JSON)', async () => {
      // The 4.5.14 host answered each with a 500 and an HTML snapshot page holding no data.
      for (const [accept, contentType, type] of [
        ['text/plain', '', JSON_TYPE],
        ['text/plain, text/csv', '', 'text/csv'],
        ['*/*', 'text/plain', JSON_TYPE],
      ] as const) {
        const req = request(t.app).get('/v1/echo/hi').set('Accept', accept);
        const res = await (contentType ? req.set('Content-Type', contentType) : req).expect(200);
        expect(res.headers['content-type']).to.equal(type);
        expect(res.text).to.contain('hi');
      }
    });
    it('deviation: an empty Accept header is no Accept header (the host: 200, no body, no Content-Type)', async () => {
      const res = await request(t.app).get('/v1/echo/hi').set('Accept', '').expect(200);
      expect(res.headers['content-type']).to.equal(JSON_TYPE);
      expect(res.body.Message).to.equal('hi');
    });
    it("deviation: */* answers the body's format with that format's Content-Type, not the request's", async () => {
      // The host copied the request's header: `application/xml; charset=utf-16` on a UTF-8 body.
      const res = await request(t.app)
        .get('/v1/echo/hi')
        .set('Accept', '*/*')
        .set('Content-Type', 'application/xml; charset=utf-16')
        .expect(200);
      expect(res.headers['content-type']).to.equal('application/xml');
      expect(res.text).to.match(/^<\?xml version="1.0" encoding="utf-8"\?>/);
    });
    it('/json/reply ignores Accept; ?format= beats it', async () => {
      const json = await request(t.app)
        .get('/json/reply/EchoRequest?Message=hi')
        .set('Accept', 'application/xml')
        .expect(200);
      expect(json.headers['content-type']).to.equal('application/json; charset=utf-8');
      const csv = await request(t.app).get('/json/reply/EchoRequest?Message=hi&format=csv').expect(200);
      expect(csv.headers['content-type']).to.equal('text/csv');
    });
    it('a suffix beats ?format= (.csv?format=xml is CSV)', async () => {
      const res = await request(t.app).get('/v1/echo/hi.csv?format=xml').expect(200);
      expect(res.headers['content-type']).to.equal('text/csv');
    });
  });

  describe('XML lists', () => {
    // The 4.5.14 host (run for issue 38): DataContractSerializer named the arrays namespace's prefix by the depth of
    // the element declaring it: <Locations xmlns:d3p1="…"> in a GetFlatResponse, d4p1 in a batch's list of them.
    const ARRAYS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
    it('the arrays prefix is the depth of the list element: d3p1, d4p1 in a batch', async () => {
      const one = await request(t.app).get(`${FLAT}.xml?CompanyId=1&Locations=10`).expect(200);
      expect(one.text).to.contain(`<Locations xmlns:d3p1="${ARRAYS}"><d3p1:int>10</d3p1:int></Locations>`);
      expect(one.text).to.match(/<ColumnNames xmlns:d3p1="[^"]+"><d3p1:string>/);
      expect(one.text).to.match(/<Values xmlns:d5p1="[^"]+"><d5p1:decimal>/);
      const batch = await request(t.app)
        .post('/json/reply/GetFlatRequest[]?format=xml')
        .set('Content-Type', 'application/json')
        .send('[{"CompanyId":1,"Locations":[10]}]')
        .expect(200);
      expect(batch.text).to.contain(`<Locations xmlns:d4p1="${ARRAYS}"><d4p1:int>10</d4p1:int></Locations>`);
    });
  });

  describe('predefined routes for XML', () => {
    for (const path of [
      '/xml/reply/EchoRequest?Message=hi',
      '/xml/oneway/EchoRequest?Message=hi',
      '/XML/Reply/echorequest?Message=hi',
    ]) {
      it(`${path} answers XML`, async () => {
        const res = await request(t.app).get(path).expect(200);
        expect(res.headers['content-type']).to.equal('application/xml');
        expect(res.text).to.contain('<Message>hi</Message>');
      });
    }
    it('an unknown operation on /xml/reply is 405 as an XML ErrorResponse with Errors nil', async () => {
      const res = await request(t.app).get('/xml/reply/Nope').expect(405);
      expect(res.text).to.contain('<ErrorResponse');
      expect(res.text).to.contain("<Message>The operation 'Nope' does not exist for this service</Message>");
      expect(res.text).to.contain('<Errors i:nil="true"');
    });
    it('text that looks like an entity is text: the & of &amp; &nbsp; &#38; is escaped', async () => {
      // .NET's XmlWriter escaped every `&`; a writer that keeps an `&name;` as it is (xmlbuilder2, its issue #117)
      // would answer `&amp;` as `&` and make `&nbsp;` an undefined entity (README, deviations: XML empty elements).
      const sent = 'a &amp; b &nbsp; c &#38; d';
      const res = await request(t.app)
        .get(`/xml/reply/EchoRequest?Message=${encodeURIComponent(sent)}`)
        .expect(200);
      expect(res.text).to.contain('<Message>a &amp;amp; b &amp;nbsp; c &amp;#38; d</Message>');
    });
    it('the suffix is not a format when it is not registered: hello.JSV stays the message', async () => {
      const res = await request(t.app).get('/v1/echo/hello.JSV').expect(200);
      expect(res.body.Message).to.equal('hello.JSV');
    });
  });
});

describe('ServiceStack 4.5 request bodies (as a real 4.5.14 host read them)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  for (const type of ['application/json', 'text/json', 'text/plain', 'application/xml']) {
    it(`/json/reply reads the body as JSON with Content-Type ${type}`, async () => {
      const res = await request(t.app)
        .post('/json/reply/EchoRequest')
        .set('Content-Type', type)
        .send('{"Message":"tj"}')
        .expect(200);
      expect(res.body.Message).to.equal('tj');
    });
  }
  it('/json/reply reads the body as JSON with no Content-Type at all', async () => {
    const res = await request(t.app)
      .post('/json/reply/EchoRequest')
      .unset('Content-Type')
      .send(Buffer.from('{"Message":"none"}'))
      .expect(200);
    expect(res.body.Message).to.equal('none');
  });
  it('a form-urlencoded body binds on /json/reply', async () => {
    const res = await request(t.app).post('/json/reply/EchoRequest').type('form').send('Message=form').expect(200);
    expect(res.body.Message).to.equal('form');
  });
  it('a multipart body binds on /json/reply', async () => {
    const res = await request(t.app).post('/json/reply/EchoRequest').field('Message', 'multi').expect(200);
    expect(res.body.Message).to.equal('multi');
  });
  it('form values are read as query values (Locations=10,20, UseAccountMapping=1)', async () => {
    const res = await request(t.app)
      .post('/json/reply/GetFlatRequest')
      .type('form')
      .send('CompanyId=1&Locations=10,20&UseAccountMapping=1')
      .expect(200);
    expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
    expect(res.body.SelectedOptions.UseAccountMapping).to.equal(true);
  });
  it(
    'an empty string is a value in a JSON, XML or quoted JSV body, and absent in form fields, an unquoted JSV ' +
      'member or the query',
    async () => {
      // The 4.5.14 host: {"Message":""} → "Message":""; <Message></Message> → <Message></Message>; {Message:""} →
      // Message:"";
      // {Message:} → no Message; Message= as a form field or in the query → no Message.
      const echoed = async (req: request.Test) => (await req.expect(200)).body.Message as unknown;
      expect(
        await echoed(
          request(t.app).post('/json/reply/EchoRequest').set('Content-Type', 'application/json').send('{"Message":""}'),
        ),
      ).to.equal('');
      expect(
        await echoed(
          request(t.app)
            .post('/xml/reply/EchoRequest?format=json')
            .set('Content-Type', 'application/xml')
            .send('<EchoRequest xmlns="http://schemas.servicestack.net/types"><Message></Message></EchoRequest>'),
        ),
      ).to.equal('');
      expect(
        await echoed(
          request(t.app)
            .post('/jsv/reply/EchoRequest?format=json')
            .set('Content-Type', 'application/jsv')
            .send('{Message:""}'),
        ),
      ).to.equal('');
      expect(
        await echoed(
          request(t.app)
            .post('/jsv/reply/EchoRequest?format=json')
            .set('Content-Type', 'application/jsv')
            .send('{Message:}'),
        ),
      ).to.equal(undefined);
      expect(await echoed(request(t.app).post('/json/reply/EchoRequest').type('form').send('Message='))).to.equal(
        undefined,
      );
      expect(await echoed(request(t.app).get('/json/reply/EchoRequest?Message='))).to.equal(undefined);
      // Answered in XML the empty value is an empty element (the host wrote <Message></Message>; the same document).
      const xml = await request(t.app)
        .post('/xml/reply/EchoRequest')
        .set('Content-Type', 'application/xml')
        .send('<EchoRequest xmlns="http://schemas.servicestack.net/types"><Message></Message></EchoRequest>')
        .expect(200);
      expect(xml.text).to.contain('<Message/>');
    },
  );
  it('deviation: an empty CSV cell is absent for every type (the host: 400 for a bool or int)', async () => {
    // The 4.5.14 host, run for issue 38: `CompanyId,UseAccountMapping` / `1,` → 400 SerializationException with the
    // .NET stack trace in its message; an empty string, date or list cell was absent (200), as `{UseAccountMapping:}`
    // in JSV and `UseAccountMapping=` in the query were.
    const res = await request(t.app)
      .post('/csv/reply/GetFlatRequest?format=json')
      .set('Content-Type', 'text/csv')
      .send('CompanyId,UseAccountMapping,IncludeComputedColumns,OrderBy,StartDate,Filters\r\n1,,,,,\r\n')
      .expect(200);
    expect(res.body.SelectedOptions).to.include({ UseAccountMapping: false, IncludeComputedColumns: false });
  });
  it('a bad form value is a 400 naming it', async () => {
    const res = await request(t.app).post('/json/reply/GetFlatRequest').type('form').send('CompanyId=abc').expect(400);
    expect(res.body.ResponseStatus.Errors).to.deep.equal([
      {
        ErrorCode: 'SerializationException',
        FieldName: 'CompanyId',
        Message: "'abc' is an Invalid value for 'CompanyId'",
      },
    ]);
  });
  it('an XML body on /xml/reply, answered in XML', async () => {
    const res = await request(t.app)
      .post('/xml/reply/EchoRequest')
      .set('Content-Type', 'application/xml')
      .send('<EchoRequest xmlns="http://schemas.servicestack.net/types"><Message>xmlbody</Message></EchoRequest>')
      .expect(200);
    expect(res.headers['content-type']).to.equal('application/xml');
    expect(res.text).to.contain('<Message>xmlbody</Message>');
  });
  it('an XML body with DataContract lists (as XmlServiceClient sends it)', async () => {
    const body =
      '<GetFlatRequest xmlns="http://schemas.servicestack.net/types" ' +
      'xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays">' +
      '<CompanyId>1</CompanyId><Filters><a:guid>0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9</a:guid></Filters>' +
      '<Locations><a:int>10</a:int><a:int>20</a:int></Locations>' +
      '<UseAccountMapping>true</UseAccountMapping></GetFlatRequest>';
    const res = await request(t.app)
      .post('/xml/reply/GetFlatRequest?format=json')
      .set('Content-Type', 'application/xml')
      .send(body)
      .expect(200);
    expect(res.body.SelectedOptions).to.include({ UseAccountMapping: true });
    expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
    expect(res.body.SelectedOptions.Filters).to.deep.equal(['0a1b2c3d4e5f60718293a4b5c6d7e8f9']);
  });
  it('JSON on /xml/reply is a 400 SerializationException in XML', async () => {
    const res = await request(t.app)
      .post('/xml/reply/EchoRequest')
      .set('Content-Type', 'application/json')
      .send('{"Message":"x"}')
      .expect(400);
    expect(res.text).to.contain('<ErrorCode>SerializationException</ErrorCode>');
    expect(res.text).to.contain("Could not deserialize 'application/xml' request using EchoRequest");
  });
  it('a JSV body on /jsv/reply, answered in JSV', async () => {
    const res = await request(t.app)
      .post('/jsv/reply/EchoRequest')
      .set('Content-Type', 'application/jsv')
      .send('{Message:jsvbody}')
      .expect(200);
    expect(res.text).to.equal(`{Message:jsvbody,CompanyName:${CO},ResponseStatus:{}}`);
  });
  it('a JSV body with lists, quoted strings and True', async () => {
    const res = await request(t.app)
      .post('/jsv/reply/GetFlatRequest?format=json')
      .set('Content-Type', 'application/jsv')
      .send('{CompanyId:1,Locations:[10,20],Filters:["0a1b2c3d4e5f60718293a4b5c6d7e8f9"],UseAccountMapping:True}')
      .expect(200);
    expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
    expect(res.body.SelectedOptions.UseAccountMapping).to.equal(true);
  });
  it('a JSON POST ignores the query string', async () => {
    const res = await request(t.app).post('/json/reply/EchoRequest?Message=q').send({}).expect(200);
    expect(res.body).to.not.have.property('Message');
    const both = await request(t.app).post('/json/reply/EchoRequest?Message=q').send({ Message: 'body' }).expect(200);
    expect(both.body.Message).to.equal('body');
  });
  it(
    'a POST without a body binds the defaults, the query string ignored (the 4.5.14 host: ' +
      '{"CompanyName":…,"ResponseStatus":{}}; issue 24)',
    async () => {
      const res = await request(t.app).post('/json/reply/EchoRequest?Message=q').expect(200);
      expect(res.body).to.deep.equal({ CompanyName: CO, ResponseStatus: {} });
    },
  );
  it('on a GET, a query value overrides a path variable', async () => {
    const res = await request(t.app).get('/v1/echo/hello?Message=x').expect(200);
    expect(res.body.Message).to.equal('x');
    const csv = await request(t.app).get('/v1/echo/hello.csv?message=y').expect(200);
    expect(csv.text).to.contain('\r\ny,');
  });
  it('X-HTTP-Method-Override: GET routes a POST as the GET it stands for', async () => {
    const res = await request(t.app).post('/v1/echo/path').set('X-HTTP-Method-Override', 'GET').expect(200);
    expect(res.body.Message).to.equal('path');
  });
  it('X-HTTP-Method-Override: POST sends a GET with a body to the POST operation', async () => {
    const res = await request(t.app)
      .get('/json/reply/EchoRequest')
      .set('X-HTTP-Method-Override', 'POST')
      .set('Content-Type', 'application/json')
      .send('{"Message":"ovr"}')
      .expect(200);
    expect(res.body.Message).to.equal('ovr');
  });

  describe('JSON body values, converted as 4.5 converted them', () => {
    const flat = (body: string) =>
      request(t.app).post('/json/reply/GetFlatRequest').set('Content-Type', 'application/json').send(body);
    it('"IncludeComputedColumns":1 is true, 0 is false, "true" and "1" are true', async () => {
      for (const [value, bound] of [
        ['1', true],
        ['0', false],
        ['"true"', true],
        ['"1"', true],
      ] as const) {
        const res = await flat(`{"CompanyId":1,"IncludeComputedColumns":${value}}`).expect(200);
        expect(res.body.SelectedOptions.IncludeComputedColumns, value).to.equal(bound);
      }
    });
    it('"Locations":10 is [10]; "10,20" is [10,20]; ["10"] is [10]', async () => {
      for (const [value, bound] of [
        ['10', [10]],
        ['"10,20"', [10, 20]],
        ['["10"]', [10]],
      ] as const) {
        const res = await flat(`{"CompanyId":1,"Locations":${value}}`).expect(200);
        expect(res.body.SelectedOptions.Locations, value).to.deep.equal(bound);
      }
    });
    it('"CompanyId":"1" is 1; a GUID string is a one-item Filters', async () => {
      const res = await flat('{"CompanyId":"1","Filters":"0a1b2c3d4e5f60718293a4b5c6d7e8f9"}').expect(200);
      expect(res.body.SelectedOptions.Filters).to.deep.equal(['0a1b2c3d4e5f60718293a4b5c6d7e8f9']);
    });
    it('a trailing comma is accepted', async () => {
      const res = await flat('{"CompanyId":1,"Locations":[10,],}').expect(200);
      expect(res.body.SelectedOptions.Locations).to.deep.equal([10]);
    });
    it('"Message":5 is "5" and "Message":true is "true" (echo)', async () => {
      const five = await request(t.app)
        .post('/json/reply/EchoRequest')
        .send('{"Message":5}')
        .set('Content-Type', 'application/json')
        .expect(200);
      expect(five.body.Message).to.equal('5');
      const yes = await request(t.app)
        .post('/json/reply/EchoRequest')
        .send('{"Message":true}')
        .set('Content-Type', 'application/json')
        .expect(200);
      expect(yes.body.Message).to.equal('true');
    });
    it('deviation: a value 4.5 could not convert (dropped, 200) is a 400 naming the field', async () => {
      for (const [body, field] of [
        ['{"CompanyId":1,"IncludeComputedColumns":2}', 'IncludeComputedColumns'],
        ['{"CompanyId":7.5}', 'CompanyId'],
        ['{"CompanyId":1,"Locations":[1.5]}', 'Locations'],
        ['{"CompanyId":1,"Filters":["xyz"]}', 'Filters'],
        ['{"CompanyId":1,"StartDate":1735689600000}', 'StartDate'],
      ] as const) {
        const res = await flat(body).expect(400);
        expect(res.body.ResponseStatus.Errors[0].FieldName, body).to.equal(field);
      }
    });
    it('deviation: a truncated body (4.5 read what it could, 200) is a 400', async () => {
      const res = await flat('{"CompanyId":1').expect(400);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
    });
  });
});
