/**
 * ServiceStack 4.5's query binder and ?jsconfig=, side by side with a real ServiceStack 4.5.14 self-host (Mono 6.8,
 * the spec's DTOs, JSON default): every expected answer below is what that host answered to the same query
 * (issue 10, groups 4 and 6). The report echoes what was bound in SelectedOptions, which is how the host's
 * answers were read too.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';
const DINE_IN = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';

/**
 * 00:00 of a calendar date in the offset form 4.5.14 wrote for the kind it read (`+0000` Local by default); a date
 * sent with an offset (`+0100`) at 00:00 in that offset (a deliberate deviation: the host wrote the instant).
 */
function utcMidnight(iso: string, offset = '+0000'): string {
  const zone = offset === '' || offset === '-0000' ? 'Z' : `${offset.slice(0, 3)}:${offset.slice(3)}`;
  return `/Date(${Date.parse(`${iso}T00:00:00${zone}`)}${offset})/`;
}

describe('ServiceStack 4.5 binder (as a real 4.5.14 host answered)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const flat = (query: string) => request(t.app).get(`${FLAT}?CompanyId=1&${query}`);

  describe('booleans', () => {
    const reads: [string, boolean][] = [
      ['true', true],
      ['TRUE', true],
      ['True', true],
      ['1', true],
      ['on', true],
      ['true,false', true],
      ['1,0', true],
      ['on,', true],
      ['t', false],
      ['y', false],
      ['n', false],
      ['f', false],
      ['no', false],
      ['0', false],
      ['2', false],
      ['False', false],
      ['T', false],
      ['Y', false],
      ['ON', false],
      ['On', false],
      ['1 ', false],
      [' 1', false],
      ['', false],
    ];
    for (const [sent, bound] of reads) {
      it(`UseAccountMapping=${JSON.stringify(sent)} binds ${bound}`, async () => {
        const res = await flat(`UseAccountMapping=${encodeURIComponent(sent)}`).expect(200);
        expect(res.body.SelectedOptions.UseAccountMapping).to.equal(bound);
      });
    }
    const refused: [string, string][] = [
      ['off', 'off'],
      ['yes', 'yes'],
      [' true', ' true'],
      ['true ', 'true '],
      ['Off', 'Off'],
      ['yes,no', 'yes'],
      [',1', ''],
    ];
    for (const [sent, named] of refused) {
      it(`UseAccountMapping=${JSON.stringify(sent)} is a 400 naming '${named}'`, async () => {
        const res = await flat(`UseAccountMapping=${encodeURIComponent(sent)}`).expect(400);
        expect(res.body.ResponseStatus.Errors).to.deep.equal([
          {
            ErrorCode: 'SerializationException',
            FieldName: 'UseAccountMapping',
            Message: `'${named}' is an Invalid value for 'UseAccountMapping'`,
          },
        ]);
      });
    }
  });

  describe('integers', () => {
    for (const sent of ['01', '1.0', '%2B1', '00', '-01', '99999999999', '0x1', '1e2', '1,2']) {
      it(`CompanyId=${sent} is a 400`, async () => {
        const res = await request(t.app).get(`${FLAT}?CompanyId=${sent}`).expect(400);
        expect(res.body.ResponseStatus).to.deep.equal({
          ErrorCode: 'SerializationException',
          Message: "Unable to bind to request 'GetFlatRequest'",
          Errors: [
            {
              ErrorCode: 'SerializationException',
              FieldName: 'CompanyId',
              Message: `'${decodeURIComponent(sent)}' is an Invalid value for 'CompanyId'`,
            },
          ],
        });
      });
    }
    for (const sent of ['+1', '%201%20', '%091', '1']) {
      it(`CompanyId=${sent} binds 1 (a raw + is a space; whitespace is trimmed)`, async () => {
        const res = await request(t.app).get(`${FLAT}?CompanyId=${sent}`).expect(200);
        expect(res.body.Url).to.be.a('string');
      });
    }
    it('a List<int> item reads as .NET int.Parse: Locations=010 is [10]', async () => {
      const res = await flat('Locations=010,+20').expect(200);
      expect(res.body.SelectedOptions.Locations).to.deep.equal([10, 20]);
    });
    it('a List<int> item with decimals is a 400 naming the list', async () => {
      const res = await flat('Locations=1.0').expect(400);
      expect(res.body.ResponseStatus.Errors[0]).to.deep.equal({
        ErrorCode: 'SerializationException',
        FieldName: 'Locations',
        Message: "'1.0' is an Invalid value for 'Locations'",
      });
    });
    it('an empty List<int> item is a 400 (Locations=1,,2)', async () => {
      await flat('Locations=10,,20').expect(400);
    });
  });

  describe('dates', () => {
    // The host answered these as DateTimes; the report reads their calendar date.
    // The offset is the form the host wrote back for the DateTimeKind it read (issue 24): `+0000` unless noted.
    // A date sent with an offset is the client's day at 00:00 in that offset (deviation, issue 38).
    const dates: [string, string, string?][] = [
      ['2025-1-1', '2025-01-01'],
      ['01/01/2025', '2025-01-01'],
      ['01/02/2025', '2025-02-01'], // 10 characters: 4.5's ParseManual reads dd/MM/yyyy
      ['02/01/2025', '2025-01-02'],
      ['13/01/2025', '2025-01-13'],
      ['1/2/2025', '2025-01-02'], // otherwise DateTime.Parse, month first
      ['12/31/2025', '2025-12-31'],
      ['01/02/2025 00:00:00', '2025-01-02', '-0000'],
      ['Jan 1 2025', '2025-01-01'],
      ['Feb 2 2025', '2025-02-02'],
      ['2 Feb 2025', '2025-02-02'],
      ['2025/01/02', '2025-01-02'],
      ['20250101', '2025-01-01', '-0000'],
      ['2025-01-01 10:00', '2025-01-01'],
      ['2025-01-01T10:00:00.123Z', '2025-01-01'],
      // The host read /Date(ms±hhmm)/ as the wall clock it names (01:00) and answered /Date(1735693200000+0000)/.
      ['/Date(1735689600000+0100)/', '2025-01-01', '+0100'],
      ['/Date(1735689600000-0000)/', '2025-01-01'],
      ['\\/Date(1735689600000)\\/', '2025-01-01', ''],
      ['2025-01-01T00:00:00+02:00', '2025-01-01', '+0200'], // the host: the instant, 2024-12-31T22:00Z
      ['2025-01-01T00:00:00+0200', '2025-01-01', '+0200'],
      ['2025-01-01+02:00', '2025-01-01', '+0200'],
      ['2025-01-01T00:00:00-05:00', '2025-01-01', '-0500'],
      ['2024-12-31T23:59:59-05:00', '2024-12-31', '-0500'], // the host: 2025-01-01T04:59:59Z
      // 2025-01-01T14:30+09:00; the host (run again for issue 38): /Date(1735741800000+0000)/, 14:30 UTC.
      ['/Date(1735709400000+0900)/', '2025-01-01', '+0900'],
    ];
    for (const [sent, date, offset] of dates) {
      it(`StartDate=${sent} is ${date}`, async () => {
        const res = await flat(
          `UseCustomDateRange=true&StartDate=${encodeURIComponent(sent)}&EndDate=2025-12-31`,
        ).expect(200);
        expect(res.body.SelectedOptions.StartDate).to.equal(utcMidnight(date, offset));
      });
    }
    for (const sent of [
      '2025-13-01',
      'abc',
      '2025-02-30',
      '10000-01-01',
      'Date(1735689600000)',
      '/Date(1735689600000 0100)/',
      '2025-01-01T00:00:00+15:00', // beyond .NET's ±14:00
      '2025-01-01T00:00:00+02:60',
    ]) {
      it(`StartDate=${sent} is a 400`, async () => {
        const res = await flat(
          `UseCustomDateRange=true&StartDate=${encodeURIComponent(sent)}&EndDate=2025-12-31`,
        ).expect(400);
        expect(res.body.ResponseStatus.Errors).to.deep.equal([
          {
            ErrorCode: 'SerializationException',
            FieldName: 'StartDate',
            Message: `'${sent}' is an Invalid value for 'StartDate'`,
          },
        ]);
      });
    }
  });

  describe('GUIDs', () => {
    for (const sent of [
      `"${DINE_IN}"`,
      `["${DINE_IN}"]`,
      `{0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9}`,
      DINE_IN.toUpperCase(),
    ]) {
      it(`Filters=${sent} binds`, async () => {
        const res = await flat(`Filters=${encodeURIComponent(sent)}`).expect(200);
        expect(res.body.SelectedOptions.Filters).to.deep.equal([DINE_IN]);
      });
    }
    it('a GUID in single quotes is a 400', async () => {
      const res = await flat(`Filters='${DINE_IN}'`).expect(400);
      expect(res.body.ResponseStatus.Errors[0].Message).to.equal(`''${DINE_IN}'' is an Invalid value for 'Filters'`);
    });
  });

  describe('?jsconfig=', () => {
    it('EmitCamelCaseNames:true writes camelCase names', async () => {
      const res = await request(t.app).get('/v1/echo/hello?jsconfig=EmitCamelCaseNames:true').expect(200);
      expect(res.text).to.equal(`{"message":"hello","companyName":"${TEST_COMPANY_NAME}","responseStatus":{}}`);
    });
    it('the key is read in any case (emitcamelcasenames:true)', async () => {
      const res = await request(t.app).get('/v1/echo/hello?jsconfig=emitcamelcasenames:true').expect(200);
      expect(res.body).to.have.property('companyName');
    });
    it('EmitLowercaseUnderscoreNames:true writes lowercase_underscore names', async () => {
      const res = await flat('jsconfig=EmitLowercaseUnderscoreNames:true').expect(200);
      expect(Object.keys(res.body)).to.deep.equal(['url', 'selected_options', 'report_model']);
      expect(res.body.selected_options).to.have.property('use_account_mapping', false);
    });
    it('DateHandler:ISO8601 writes dates as ISO 8601 with 7 fraction digits', async () => {
      const res = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=DateHandler:ISO8601',
      ).expect(200);
      // A query date is Local: the host wrote +00:00 (issue 24)
      expect(res.body.SelectedOptions.StartDate).to.equal('2025-01-01T00:00:00.0000000+00:00');
    });
    it('DateHandler:ISO8601DateOnly and DateHandler:UnixTime', async () => {
      const only = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=DateHandler:ISO8601DateOnly',
      ).expect(200);
      expect(only.body.SelectedOptions.StartDate).to.equal('2025-01-01');
      const unix = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=DateHandler:UnixTime',
      ).expect(200);
      expect(unix.body.SelectedOptions.StartDate).to.equal(1735689600);
    });
    it('two settings at once, and an unknown one ignored', async () => {
      const res = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=DateHandler:ISO8601,' +
          'EmitCamelCaseNames:true,bogus:1',
      ).expect(200);
      expect(res.body.selectedOptions.startDate).to.equal('2025-01-01T00:00:00.0000000+00:00');
    });
    // Issue 38: the 4.5.14 host (run beside this service) applied every value of a repeated jsconfig (its QueryString
    // joined them with `,`).
    it('given twice (EmitCamelCaseNames:true, then DateHandler:ISO8601), both apply', async () => {
      const res = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31' +
          '&jsconfig=EmitCamelCaseNames:true&jsconfig=DateHandler:ISO8601',
      ).expect(200);
      expect(res.body.selectedOptions.startDate).to.equal('2025-01-01T00:00:00.0000000+00:00');
      expect(res.body).not.to.have.property('SelectedOptions');
    });
    it('given twice in either order and in any case of the name, both apply', async () => {
      const res = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31' +
          '&JsConfig=DateHandler:UnixTime&jsconfig=EmitLowercaseUnderscoreNames:true',
      ).expect(200);
      expect(res.body.selected_options.start_date).to.equal(1735689600);
    });
    // 4.5.14's JsConfig.CreateScope: items in order, a later one overriding; a flag is true unless `false`/`0`;
    // camelCase beats lowercase_underscore; the abbreviations eccn, elun, dh.
    for (const [jsconfig, key] of [
      ['EmitCamelCaseNames:true&jsconfig=EmitCamelCaseNames:false', 'CompanyName'],
      ['EmitCamelCaseNames:false&jsconfig=EmitCamelCaseNames', 'companyName'],
      ['EmitLowercaseUnderscoreNames:true&jsconfig=EmitCamelCaseNames:true', 'companyName'],
      ['eccn:1', 'companyName'],
      ['elun:yes', 'company_name'],
      ['EmitCamelCaseNames:0', 'CompanyName'],
      // Also the host's answers (issue 38): a value other than false/0 is true; an empty jsconfig changes nothing; a
      // key is not trimmed, so one after `, ` or a leading space is unknown.
      ['eccn:no', 'companyName'],
      ['eccn:FALSE', 'CompanyName'],
      ['&jsconfig=EmitCamelCaseNames:true', 'companyName'],
      ['%20EmitCamelCaseNames:true', 'CompanyName'],
      ['DateHandler:ISO8601,%20EmitCamelCaseNames:true', 'CompanyName'],
    ] as const) {
      it(`jsconfig=${jsconfig} names ${key}`, async () => {
        const res = await request(t.app).get(`/v1/echo/hi?jsconfig=${jsconfig}`).expect(200);
        expect(Object.keys(res.body)).to.include(key);
      });
    }
    it('a later DateHandler overrides an earlier one (dh:iso8601, then dh:to is the default form)', async () => {
      const res = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=dh:iso8601&jsconfig=dh:to',
      ).expect(200);
      expect(res.body.SelectedOptions.StartDate).to.equal(utcMidnight('2025-01-01'));
      const short = await flat(
        'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31&jsconfig=dh:iso8601do',
      ).expect(200);
      expect(short.body.SelectedOptions.StartDate).to.equal('2025-01-01');
    });
    // The 4.5.14 host's first JSONP answer ignored it too, but left the settings in force on the thread that wrote it:
    // later answers there, with no jsconfig, came out camelCase (a deliberate deviation: nothing carries over here).
    it('it does not change a JSONP answer, nor a later answer, nor an error raised before the service', async () => {
      const jsonp = await request(t.app).get('/v1/echo/hi?jsconfig=EmitCamelCaseNames:true&callback=cb').expect(200);
      expect(jsonp.text).to.equal(`cb({"Message":"hi","CompanyName":"${TEST_COMPANY_NAME}","ResponseStatus":{}})`);
      for (const path of ['/v1/echo/hi?callback=cb', '/v1/echo/hi']) {
        const later = await request(t.app).get(path).expect(200);
        expect(later.text).to.contain('"CompanyName"');
      }
      const error = await request(t.app).get(`${FLAT}?CompanyId=x&jsconfig=EmitCamelCaseNames:true`).expect(400);
      expect(error.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
    });
    // The 4.5.14 host, run for issue 38: JSV and CSV's JSV cells take the names and the Unix date forms (its ISO 8601
    // forms are JSV's own date form already); CSV's header row keeps the DTO's names.
    const JAN = 'UseCustomDateRange=true&StartDate=2025-01-01&EndDate=2025-01-31';
    for (const [jsconfig, expected] of [
      ['eccn&jsconfig=dh:ut', '{url:'],
      ['eccn&jsconfig=dh:ut', 'selectedOptions:{reportType:ProfitAndLoss,'],
      ['eccn&jsconfig=dh:ut', 'startDate:1735689600,endDate:1738281600'],
      ['DateHandler:UnixTimeMs', 'StartDate:1735689600000,EndDate:1738281600000'],
      ['DateHandler:ISO8601', 'StartDate:2025-01-01,EndDate:2025-01-31'],
      ['dh:iso8601do', 'StartDate:2025-01-01,EndDate:2025-01-31'],
      ['elun', 'selected_options:{report_type:ProfitAndLoss,date_frequency:Monthly,use_account_mapping:False,'],
    ] as const) {
      it(`JSV with jsconfig=${jsconfig} holds ${expected}`, async () => {
        const res = await flat(`${JAN}&format=jsv&jsconfig=${jsconfig}`).expect(200);
        expect(res.text).to.contain(expected);
      });
    }
    it('CSV: the cells take the names and Unix dates, the header row keeps the DTO names', async () => {
      const res = await flat(`${JAN}&format=csv&jsconfig=EmitCamelCaseNames:true&jsconfig=DateHandler:UnixTime`).expect(
        200,
      );
      const [header, row] = res.text.split('\r\n');
      expect(header).to.equal('Url,SelectedOptions,ReportModel');
      expect(row).to.contain(',"{reportType:ProfitAndLoss,dateFrequency:Monthly,useAccountMapping:False,');
      expect(row).to.contain('startDate:1735689600,endDate:1738281600');
      expect(row).to.contain('","{reportHeader:');
      const snake = await flat(`${JAN}&format=csv&jsconfig=elun`).expect(200);
      expect(snake.text)
        .to.contain('"{report_type:ProfitAndLoss,')
        .and.contain('start_date:2025-01-01,end_date:2025-01-31');
    });
    it('it does not change XML', async () => {
      const res = await request(t.app).get('/v1/echo/hi.xml?jsconfig=EmitCamelCaseNames:true').expect(200);
      expect(res.text).to.contain('<Message>hi</Message>');
    });
  });

  describe('JSONP parameter name', () => {
    for (const name of ['callback', 'Callback', 'CALLBACK']) {
      it(`?${name}=cb wraps the answer`, async () => {
        const res = await request(t.app).get(`/v1/echo/hi?${name}=cb`).expect(200);
        expect(res.headers['content-type']).to.equal('text/javascript');
        expect(res.text).to.equal(`cb({"Message":"hi","CompanyName":"${TEST_COMPANY_NAME}","ResponseStatus":{}})`);
      });
    }
  });
});

describe('ServiceStack 4.5 errors (as a real 4.5.14 host answered)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it(
    'an error raised before the service with no field errors has no Errors key (unknown /json/reply operation: ' +
      '405)',
    async () => {
      const res = await request(t.app).get('/json/reply/Nope').expect(405);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.text).to.equal(
        '{"ResponseStatus":{"ErrorCode":"NotImplementedException","Message":"The operation \'Nope\' does not ' +
          'exist for this service"}}',
      );
    },
  );

  it('/json/reply/ with no operation is 405, naming the rest of the path', async () => {
    const slash = await request(t.app).get('/json/reply/').expect(405);
    expect(slash.body.ResponseStatus).to.deep.equal({
      ErrorCode: 'NotImplementedException',
      Message: "The operation 'reply/' does not exist for this service",
    });
    const bare = await request(t.app).get('/json/reply').expect(405);
    expect(bare.body.ResponseStatus.Message).to.equal("The operation 'reply' does not exist for this service");
  });

  it('an error raised before the service is plain JSON with its status even with ?callback=', async () => {
    const binding = await request(t.app).get(`${FLAT}?CompanyId=abc&callback=cb`).expect(400);
    expect(binding.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(binding.text).to.equal(
      '{"ResponseStatus":{"ErrorCode":"SerializationException","Message":"Unable to bind to request ' +
        '\'GetFlatRequest\'","Errors":[{"ErrorCode":"SerializationException","FieldName":"CompanyId",' +
        '"Message":"\'abc\' is an Invalid value for \'CompanyId\'"}]}}',
    );
    const unknown = await request(t.app).get('/json/reply/Nope?callback=cb').expect(405);
    expect(unknown.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(unknown.text.startsWith('{"ResponseStatus":')).to.equal(true);
  });

  it(
    'an error raised inside the service keeps Errors: [] and is wrapped for a JSONP caller, with its ' + 'status',
    async () => {
      const other = await t.keyFor(2);
      const res = await request(t.rawApp).get(`${FLAT}?CompanyId=1&callback=cb`).set('X-ApiKey', other).expect(403);
      expect(res.headers['content-type']).to.equal('text/javascript');
      const body = JSON.parse(res.text.replace(/^cb\(/, '').replace(/\)$/, ''));
      expect(body.ResponseStatus.ErrorCode).to.equal('Forbidden');
      expect(body.ResponseStatus.Errors).to.deep.equal([]);
    },
  );
});
