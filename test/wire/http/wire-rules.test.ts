import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

describe('wire rules (ServiceStack compatibility)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  describe('format', () => {
    it('When nothing is asked, then the answer is JSON with a utf-8 charset', async () => {
      const res = await request(t.app).get('/v1/echo/hello').expect(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.text).to.equal(`{"Message":"hello","CompanyName":"${TEST_COMPANY_NAME}","ResponseStatus":{}}`);
      expect(res.headers.vary).to.match(/Accept/);
    });

    it(
      'When a browser asks for HTML, then it gets the HTML snapshot page (as a real 4.5.14 host answered); */* ' +
        'alone is JSON',
      async () => {
        const res = await request(t.app).get('/v1/echo/hello').set('Accept', 'text/html,*/*;q=0.8').expect(200);
        // The 4.5.14 host sent `text/html` with no charset (its page's meta tag named UTF-8): a deviation (README).
        expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
        const any = await request(t.app).get('/v1/echo/hello').set('Accept', '*/*').expect(200);
        expect(any.headers['content-type']).to.equal('application/json; charset=utf-8');
      },
    );

    it(
      'When the path ends in .json, then the suffix is stripped before binding and JSON wins over ' + 'Accept',
      async () => {
        const res = await request(t.app).get('/v1/echo/hello.json').set('Accept', 'application/xml').expect(200);
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(res.body.Message).to.equal('hello');
      },
    );

    it('When the suffix is not a known format, then it stays part of the value', async () => {
      const res = await request(t.app).get('/v1/echo/a.b').expect(200);
      expect(res.body.Message).to.equal('a.b');
    });

    it('When the suffix is JSON in upper case, then it is not a format (case-sensitive lookup)', async () => {
      const res = await request(t.app).get('/v1/echo/hello.JSON').expect(200);
      expect(res.body.Message).to.equal('hello.JSON');
    });

    it('When ?format=json is given, then JSON is answered whatever Accept says', async () => {
      const res = await request(t.app).get('/v1/echo/hello?format=json').set('Accept', 'application/xml').expect(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    });

    it('When ?format= is unknown, then it is ignored', async () => {
      const res = await request(t.app).get('/v1/echo/hello?format=nonsense').expect(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    });
  });

  describe('JSONP', () => {
    it('When ?callback= is given, then the JSON is wrapped as name(...) in text/javascript', async () => {
      const res = await request(t.app).get('/v1/echo/hello?callback=handle').expect(200);
      expect(res.headers['content-type']).to.equal('text/javascript');
      expect(res.text).to.equal(`handle({"Message":"hello","CompanyName":"${TEST_COMPANY_NAME}","ResponseStatus":{}})`);
    });

    it('When the callback name holds unsafe characters, then each becomes _', async () => {
      const res = await request(t.app).get('/v1/echo/hi').query({ callback: 'alert(1);<script>a.b$' }).expect(200);
      expect(res.text.startsWith('alert_1___script_a.b_(')).to.equal(true);
    });

    it(
      'When the service raises an error to a JSONP caller, then the status is kept and the ResponseStatus is ' +
        'wrapped',
      async () => {
        const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=99&callback=cb');
        expect(res.status).to.be.within(400, 499);
        expect(res.headers['content-type']).to.equal('text/javascript');
        const body = JSON.parse(res.text.replace(/^cb\(/, '').replace(/\)$/, ''));
        expect(body.ResponseStatus.Errors[0].FieldName).to.equal('Locations');
      },
    );

    it(
      'When binding fails for a JSONP caller, then the error is plain JSON (raised before the service, as 4.5 ' +
        'did)',
      async () => {
        const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=x&callback=cb').expect(400);
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
      },
    );
  });

  describe('routing', () => {
    it('When the path differs in case, then the route still matches and path values keep their case', async () => {
      const res = await request(t.app).get('/V1/ECHO/MiXeD').expect(200);
      expect(res.body.Message).to.equal('MiXeD');
      await request(t.app).post('/JSON/REPLY/echorequest').send({ Message: 'x' }).expect(200);
    });

    it('When the path has empty segments or a trailing slash, then they are ignored', async () => {
      const res = await request(t.app).get('//v1//echo/hello/').expect(200);
      expect(res.body.Message).to.equal('hello');
    });

    it(
      'When a pre-defined route has a trailing slash or an empty segment, then it is not the operation (as the ' +
        '4.5.14 host answered)',
      async () => {
        const slash = await request(t.app).get('/json/reply/EchoRequest/?Message=x').expect(405);
        expect(slash.body).to.deep.equal({
          ResponseStatus: {
            ErrorCode: 'NotImplementedException',
            Message: "The operation 'EchoRequest/' does not exist for this service",
          },
        });
        const empty = await request(t.app).get('/json//reply/EchoRequest?Message=x').expect(404);
        expect(empty.text).to.equal('404');
        const leading = await request(t.app).get('//json/reply//EchoRequest?Message=x').expect(200);
        expect(leading.body.Message).to.equal('x');
      },
    );

    // `%2F` is a deviation (README): the 4.5.14 host decoded it before matching routes, so `a%20b%2Fc` was a 404.
    it('When a path value is percent-encoded, then it is decoded', async () => {
      const res = await request(t.app).get('/v1/echo/a%20b%2Fc').expect(200);
      expect(res.body.Message).to.equal('a b/c');
    });

    // As the 4.5.14 host read them (issue 38); its answer to `a%zzb` was an empty 200 (a deviation, README).
    it('When a path escape is not UTF-8, then it reads as U+FFFD; a % that starts no escape stays', async () => {
      const latin1 = await request(t.app).get('/v1/echo/caf%E9').expect(200);
      expect(latin1.body.Message).to.equal('caf\uFFFD');
      const stray = await request(t.app).get('/v1/echo/a%zzb').expect(200);
      expect(stray.body.Message).to.equal('a%zzb');
      const xml = await request(t.app).get('/v1/echo/caf%E9.xml').expect(200);
      expect(xml.text).to.contain('<Message>caf\uFFFD</Message>');
    });

    it('When the route is unknown, then the answer is 404 text/plain "404"', async () => {
      const res = await request(t.app).get('/v2/nothing').set('Accept', 'application/json').expect(404);
      expect(res.headers['content-type']).to.equal('text/plain');
      expect(res.text).to.equal('404');
      expect(res.headers.vary, 'the 4.5.14 host sent Vary: Accept on its 404 too').to.equal('Accept');
    });

    it(
      'When a REST route is called with a verb it does not take, then the answer is 404 (the verb is part of the ' +
        'match)',
      async () => {
        const res = await request(t.app).delete('/v1/echo/hello').expect(404);
        expect(res.text).to.equal('404');
      },
    );

    it('When /json/reply names an unknown operation, then the answer is 405 with a ResponseStatus', async () => {
      const res = await request(t.app).post('/json/reply/NoSuchRequest').send({}).expect(405);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.body.ResponseStatus).to.deep.equal({
        ErrorCode: 'NotImplementedException',
        Message: "The operation 'NoSuchRequest' does not exist for this service",
      });
    });

    it('When /json/reply is called with a verb the operation does not take, then the answer is 405', async () => {
      const res = await request(t.app).put('/json/reply/EchoRequest').send({}).expect(405);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('NotImplementedException');
      expect(res.body.ResponseStatus.Message).to.match(/Could not find method named Put\(EchoRequest\)/);
    });

    // A deviation (README): the 4.5.14 host sent `X-Powered-By: ServiceStack/<version> NET45 <platform>` always.
    it('When X-Powered-By would reveal the stack, then it is absent', async () => {
      const res = await request(t.app).get('/v1/echo/hello').expect(200);
      expect(res.headers).to.not.have.property('x-powered-by');
    });
  });

  describe('echo', () => {
    it('When EchoRequest is POSTed with lower-case property names, then they bind case-insensitively', async () => {
      const res = await request(t.app).post('/json/reply/EchoRequest').send({ message: 'hi' }).expect(200);
      expect(res.body).to.deep.equal({ Message: 'hi', CompanyName: TEST_COMPANY_NAME, ResponseStatus: {} });
    });

    it('When EchoRequest is sent by GET with a query string, then the query binds case-insensitively', async () => {
      const res = await request(t.app).get('/json/reply/EchoRequest?MESSAGE=yo&unknown=1').expect(200);
      expect(res.body.Message).to.equal('yo');
    });

    it('When a POST carries a body, then the query string is ignored (as a real 4.5.14 host bound it)', async () => {
      const res = await request(t.app)
        .post('/json/reply/EchoRequest?Message=fromQuery')
        .send({ Message: 'fromBody' })
        .expect(200);
      expect(res.body.Message).to.equal('fromBody');
      const fill = await request(t.app).post('/json/reply/EchoRequest?Message=fromQuery').send({}).expect(200);
      expect(fill.body).to.not.have.property('Message');
    });
  });

  describe('query binding', () => {
    it(
      'When legacy forms are sent unencoded (/Date(...)/, [1,2], {guid}), then they bind as the original binder ' +
        'read them',
      async () => {
        const res = await request(t.app)
          .get(
            '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=on&StartDate=/Date(1704067200000)/&' +
              'EndDate=/Date(1709164800000-0000)/&Locations=[10,20]&Filters={0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9}',
          )
          .expect(200);
        expect(res.body.SelectedOptions.StartDate).to.equal('/Date(1704067200000)/');
        // -0000 is read as a local time: the 4.5.14 host answered +0000 (issue 24)
        expect(res.body.SelectedOptions.EndDate).to.equal('/Date(1709164800000+0000)/');
        expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
        expect(res.body.SelectedOptions.Filters).to.deep.equal(['0a1b2c3d4e5f60718293a4b5c6d7e8f9']);
      },
    );

    it('When an array is sent as repeated keys, then the keys join like a comma list', async () => {
      const res = await request(t.app)
        .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=10&locations=20')
        .expect(200);
      expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
    });

    it(
      'When arrays come in the bracket forms generated clients send (Locations[]=, Locations[0]=, Filters[]=), ' +
        'then they bind as the same field',
      async () => {
        const flat =
          '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&' +
          'EndDate=2024-02-29';
        const plain = await request(t.app)
          .get(`${flat}&Locations=10&Filters=0a1b2c3d4e5f60718293a4b5c6d7e8f9`)
          .expect(200);
        const unfiltered = await request(t.app).get(flat).expect(200);
        expect(plain.body.ReportModel.Rows).to.not.deep.equal(unfiltered.body.ReportModel.Rows);
        for (const query of [
          'Locations[]=10&Filters[]=0a1b2c3d4e5f60718293a4b5c6d7e8f9',
          'Locations[0]=10&Filters[0]=0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9',
          'locations%5B%5D=10&FILTERS%5B0%5D=0a1b2c3d4e5f60718293a4b5c6d7e8f9',
        ]) {
          const res = await request(t.app).get(`${flat}&${query}`).expect(200);
          expect(res.body.SelectedOptions.Locations, query).to.deep.equal([10]);
          expect(res.body.SelectedOptions.Filters, query).to.deep.equal(['0a1b2c3d4e5f60718293a4b5c6d7e8f9']);
          expect(res.body.ReportModel.Rows, query).to.deep.equal(plain.body.ReportModel.Rows);
        }
        const both = await request(t.app)
          .get('/json/reply/GetFlatRequest?CompanyId=1&Locations[]=10&Locations[]=20&Locations=10')
          .expect(200);
        expect(both.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
        // A POST with a body binds the body alone (the query is ignored, as 4.5 did).
        const posted = await request(t.app)
          .post('/json/reply/GetFlatRequest?Locations[0]=20')
          .send({ CompanyId: 1 })
          .expect(200);
        expect(posted.body.SelectedOptions.Locations).to.deep.equal([]);
      },
    );

    it(
      'When a bracketed array key carries a bad value, then the error names the key as sent; a bracketed scalar ' +
        'is an unknown key',
      async () => {
        const bad = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations[]=x').expect(400);
        expect(bad.body.ResponseStatus.Errors).to.deep.equal([
          {
            ErrorCode: 'SerializationException',
            FieldName: 'Locations[]',
            Message: "'x' is an Invalid value for 'Locations[]'",
          },
        ]);
        const scalar = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId[]=1').expect(400);
        expect(scalar.body.ResponseStatus.Errors).to.deep.equal([
          { ErrorCode: 'NotEmpty', FieldName: 'CompanyId', Message: "'Company Id' must not be empty." },
        ]);
      },
    );

    it(
      'When CompanyId (required in the contract) is missing, then 400 names it as FluentValidation NotEmpty did, ' +
        'on every route',
      async () => {
        for (const call of [
          request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?IncludeComputedColumns=true'),
          request(t.app).get('/json/reply/GetFlatRequest'),
          request(t.app).post('/json/reply/GetFlatRequest').send({ IncludeComputedColumns: true }),
        ]) {
          const res = await call.expect(400);
          expect(res.body.ResponseStatus).to.deep.equal({
            ErrorCode: 'ArgumentException',
            Message: "'Company Id' must not be empty.",
            Errors: [{ ErrorCode: 'NotEmpty', FieldName: 'CompanyId', Message: "'Company Id' must not be empty." }],
          });
        }
      },
    );

    it('When a value is empty, then the field keeps its default', async () => {
      const res = await request(t.app)
        .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseAccountMapping=&Locations=')
        .expect(200);
      expect(res.body.SelectedOptions.UseAccountMapping).to.equal(false);
      expect(res.body.SelectedOptions.Locations).to.deep.equal([]);
    });

    it('When a date carries an offset, then the calendar date in that offset is used', async () => {
      // 2024-01-01T02:00Z is still Dec 31 at -0500
      const res = await request(t.app)
        .get(
          '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&' +
            'StartDate=/Date(1704074400000-0500)/&EndDate=20240229',
        )
        .expect(200);
      expect(res.body.ReportModel.ColumnNames).to.deep.equal(['Dec 2023', 'Jan 2024', 'Feb 2024']);
    });
  });

  describe('absolute links', () => {
    it('When the Host header is not a plain host[:port], then it is not reflected in the report Url', async () => {
      const res = await request(t.app)
        .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1')
        .set('Host', 'evil.example/"><script>')
        .expect(200);
      expect(res.body.Url).to.match(/^http:\/\/localhost\/v1\/Reporting\/ProfitAndLoss\/Flat\/Reports\//);
      const fine = await request(t.app)
        .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1')
        .set('Host', 'reports.example.com:8443')
        .expect(200);
      expect(fine.body.Url).to.match(/^http:\/\/reports\.example\.com:8443\/v1\//);
    });
  });

  describe('errors', () => {
    it(
      'When a query value cannot be bound, then 400 lists one SerializationException per bad field, named as ' + 'sent',
      async () => {
        const res = await request(t.app)
          .get(
            '/v1/Reporting/ProfitAndLoss/Flat?companyid=abc&LOCATIONS=[1,x]&UseCustomDateRange=maybe&' +
              'StartDate=yesterday',
          )
          .expect(400);
        expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
        expect(res.body.ResponseStatus.Message).to.equal("Unable to bind to request 'GetFlatRequest'");
        expect(res.body.ResponseStatus.Errors).to.deep.equal([
          {
            ErrorCode: 'SerializationException',
            FieldName: 'companyid',
            Message: "'abc' is an Invalid value for 'companyid'",
          },
          {
            ErrorCode: 'SerializationException',
            FieldName: 'LOCATIONS',
            Message: "'[1,x]' is an Invalid value for 'LOCATIONS'",
          },
          {
            ErrorCode: 'SerializationException',
            FieldName: 'UseCustomDateRange',
            Message: "'maybe' is an Invalid value for 'UseCustomDateRange'",
          },
          {
            ErrorCode: 'SerializationException',
            FieldName: 'StartDate',
            Message: "'yesterday' is an Invalid value for 'StartDate'",
          },
        ]);
        expect(res.body.ResponseStatus).to.not.have.property('StackTrace');
      },
    );

    it('When a value binds but breaks the contract, then 400 names the field as sent and the rule', async () => {
      const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&orderby=Sideways').expect(400);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('ArgumentException');
      expect(res.body.ResponseStatus.Errors).to.have.length(1);
      expect(res.body.ResponseStatus.Errors[0].FieldName).to.equal('orderby');
      expect(res.body.ResponseStatus.Errors[0].ErrorCode).to.equal('Enum');
    });

    it('When the JSON body cannot be parsed, then 400 SerializationException', async () => {
      const res = await request(t.app)
        .post('/json/reply/GetFlatRequest')
        .set('Content-Type', 'application/json')
        .send('{"CompanyId": 1,')
        .expect(400);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
      expect(res.body.ResponseStatus.Message).to.match(
        /^Could not deserialize 'application\/json' request using GetFlatRequest/,
      );
    });

    it('When the JSON body is not an object, then 400 SerializationException', async () => {
      const res = await request(t.app)
        .post('/json/reply/EchoRequest')
        .set('Content-Type', 'application/json')
        .send('[1,2]')
        .expect(400);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
    });

    it('When a JSON body value has the wrong type, then 400 names it (the original silently dropped it)', async () => {
      const res = await request(t.app)
        .post('/json/reply/GetFlatRequest')
        .send({ companyId: 'one', Locations: [1, 'b'] })
        .expect(400);
      expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal([
        'companyId',
        'Locations',
      ]);
    });

    it(
      'When a text/plain body on /json/reply is not JSON, then 400 (4.5 read it as JSON whatever its ' +
        'Content-Type)',
      async () => {
        const res = await request(t.app)
          .post('/json/reply/EchoRequest')
          .set('Content-Type', 'text/plain')
          .send('hello')
          .expect(400);
        expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
      },
    );

    it('When the body is larger than the limit, then 413 with a ResponseStatus', async () => {
      const res = await request(t.app)
        .post('/json/reply/EchoRequest')
        .send({ Message: 'x'.repeat(70_000) })
        .expect(413);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('RequestEntityTooLarge');
    });
  });
});
