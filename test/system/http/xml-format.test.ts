/**
 * The XML format: `.xml`, `?format=xml` and `Accept: application/xml` answer DataContract XML whose root is the
 * response DTO type named by openapi/. Every document here is our own output, validated against wsdl/types.xsd by
 * the Java schema validator (xsd-schema-validator), all in one batch in `before` (each run costs ~0.5 s).
 * Errors keep their ResponseStatus in XML and in JSONP.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import * as xsdValidator from 'xsd-schema-validator';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

const TYPES_XSD = fileURLToPath(new URL('../../../wsdl/types.xsd', import.meta.url));
const REPORT =
  `/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29&` +
  `IncludeComputedColumns=true&Filters=${DINE_IN}`;

interface Case {
  name: string;
  status: number;
  root: string;
  send: (t: TestApp) => request.Test;
}

const CASES: Case[] = [
  { name: 'echo .xml', status: 200, root: 'EchoResponse', send: (t) => request(t.app).get('/v1/echo/hello.xml') },
  {
    name: 'echo ?format=xml (hostile text)',
    status: 200,
    root: 'EchoResponse',
    send: (t) => request(t.app).get(`/v1/echo/${encodeURIComponent('<a href="x">&amp;</a>\u0001]]>')}?format=xml`),
  },
  {
    name: 'echo Accept: application/xml',
    status: 200,
    root: 'EchoResponse',
    send: (t) => request(t.app).get('/v1/echo/hi').set('Accept', 'application/xml'),
  },
  {
    name: 'echo /json/reply ?format=xml',
    status: 200,
    root: 'EchoResponse',
    send: (t) => request(t.app).get('/json/reply/EchoRequest?Message=hi&format=xml'),
  },
  {
    name: 'report .xml',
    status: 200,
    root: 'GetFlatResponse',
    send: (t) => request(t.app).get(REPORT.replace('/Flat?', '/Flat.xml?')),
  },
  {
    name: 'report Accept: application/xml',
    status: 200,
    root: 'GetFlatResponse',
    send: (t) => request(t.app).get(REPORT).set('Accept', 'application/xml'),
  },
  {
    name: 'report POST ?format=xml',
    status: 200,
    root: 'GetFlatResponse',
    send: (t) =>
      request(t.app)
        .post('/json/reply/GetFlatRequest?format=xml')
        .send({ CompanyId: 1, Locations: [10] }),
  },
  {
    name: 'binding error .xml',
    status: 400,
    root: 'ErrorResponse',
    send: (t) => request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat.xml?CompanyId=x&Locations=a'),
  },
  {
    name: 'validation error Accept xml',
    status: 400,
    root: 'ErrorResponse',
    send: (t) =>
      request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=99').set('Accept', 'application/xml'),
  },
  {
    name: 'unknown op ?format=xml',
    status: 405,
    root: 'ErrorResponse',
    send: (t) => request(t.app).get('/json/reply/Nope?format=xml'),
  },
];

describe('XML format (DataContract XML validated against wsdl/types.xsd)', function () {
  this.timeout(60_000);
  let t: TestApp;
  let dir: string;
  const responses = new Map<string, request.Response>();
  const validations = new Map<string, { valid: boolean; messages: string[] }>();

  before(async () => {
    t = await createTestApp();
    dir = await mkdtemp(path.join(tmpdir(), 'xml-format-'));
    for (const c of CASES) responses.set(c.name, await c.send(t));
    await Promise.all(
      CASES.map(async (c, i) => {
        const file = path.join(dir, `${i}.xml`);
        await writeFile(file, responses.get(c.name)!.text);
        try {
          const r = await xsdValidator.validateXML({ file }, TYPES_XSD);
          validations.set(c.name, { valid: r.valid, messages: r.messages });
        } catch (error) {
          const e = error as { valid?: boolean; messages?: string[]; message?: string };
          validations.set(c.name, { valid: false, messages: e.messages ?? [String(e.message)] });
        }
      }),
    );
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const c of CASES) {
    it(`${c.name}: ${c.status} application/xml, root <${c.root}>, valid against the XSD`, () => {
      const res = responses.get(c.name)!;
      expect(res.status).to.equal(c.status);
      expect(res.headers['content-type']).to.equal('application/xml');
      expect(res.text).to.match(
        new RegExp(
          `^<\\?xml version="1.0" encoding="utf-8"\\?><${c.root} ` +
            `xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.servicestack.net/types">`,
        ),
      );
      expect(validations.get(c.name)).to.deep.equal({ valid: true, messages: [] });
    });
  }

  it('writes members in XSD order, dates as xs:dateTime and arrays in the Arrays namespace', () => {
    const text = responses.get('report .xml')!.text;
    // A query date is a Local DateTime: +00:00, as the 4.5.14 host wrote it (issue 24)
    expect(text).to.include('<StartDate>2024-01-01T00:00:00+00:00</StartDate>');
    // Filters are the original's List<Guid>: <guid> items, hyphenated, as a real 4.5.14 host wrote them (issue 10),
    // their prefix d3p1 (the element's depth), as the host wrote it when run again for issue 38.
    const hyphenated = DINE_IN.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    expect(text).to.include(
      `<Filters xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays">` +
        `<d3p1:guid>${hyphenated}</d3p1:guid></Filters>`,
    );
    expect(text.indexOf('<ReportModel>')).to.be.lessThan(text.indexOf('<SelectedOptions>'));
    expect(text.indexOf('<SelectedOptions>')).to.be.lessThan(text.indexOf('<Url>'));
  });

  it('escapes user text as the 4.5.14 host did (no markup injection) and replaces characters XML cannot carry', () => {
    const text = responses.get('echo ?format=xml (hostile text)')!.text;
    // `"` as it is, as the host wrote it (test/wire/http/xml-text-escaping.test.ts); U+0001: README, deviations
    expect(text).to.include('<Message>&lt;a href="x"&gt;&amp;amp;&lt;/a&gt;\uFFFD]]&gt;</Message>');
  });

  it('an XML error keeps the ResponseStatus with its field errors', () => {
    const text = responses.get('binding error .xml')!.text;
    expect(text).to.include(
      '<ResponseStatus><ErrorCode>SerializationException</ErrorCode><Message>Unable to bind to request ' +
        "'GetFlatRequest'</Message>",
    );
    expect(text).to.include('<FieldName>CompanyId</FieldName>');
    expect(text).to.include('<FieldName>Locations</FieldName>');
  });

  it('a JSONP error raised by the service keeps its status and the ResponseStatus', async () => {
    const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=99&callback=show');
    expect(res.status).to.be.within(400, 499);
    expect(res.headers['content-type']).to.equal('text/javascript');
    expect(res.text).to.match(/^show\(.*\)$/s);
    const body = JSON.parse(res.text.slice('show('.length, -1)) as {
      ResponseStatus: { ErrorCode: string; Errors: { FieldName: string }[] };
    };
    expect(body.ResponseStatus.Errors.map((e) => e.FieldName)).to.deep.equal(['Locations']);
  });

  it('.json and ?format=json still beat Accept: application/xml', async () => {
    const a = await request(t.app).get('/v1/echo/hello.json').set('Accept', 'application/xml');
    const b = await request(t.app).get('/v1/echo/hello?format=json').set('Accept', 'application/xml');
    expect([a.headers['content-type'], b.headers['content-type']]).to.deep.equal([
      'application/json; charset=utf-8',
      'application/json; charset=utf-8',
    ]);
  });
});
