/**
 * XML text escaping, byte for byte as a real ServiceStack 4.5.14 host (release assemblies, Mono self-host) wrote it:
 * every expected element below is that host's answer to the same request, in a path, a query value, a predefined
 * route and an XML body, and in its error messages. Only `&`, `<` and `>` become entities; `'` and `"` stay as
 * they are; CR LF and CR become LF.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

const TYPES = 'http://schemas.servicestack.net/types';
const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';

/** The text sent, and the `<Message>` element the 4.5.14 host answered for it (the same in every way it was sent). */
const HOST_TEXT: readonly (readonly [name: string, sent: string, hostElement: string])[] = [
  ['&', 'a&b', '<Message>a&amp;b</Message>'],
  ['<', 'a<b', '<Message>a&lt;b</Message>'],
  ['>', 'a>b', '<Message>a&gt;b</Message>'],
  ["'", "it's", "<Message>it's</Message>"],
  ['"', 'say "hi"', '<Message>say "hi"</Message>'],
  ['a tab', 'a\tb', '<Message>a\tb</Message>'],
  ['LF', 'a\nb', '<Message>a\nb</Message>'],
  ['CR', 'a\rb', '<Message>a\nb</Message>'],
  ['CR LF', 'a\r\nb', '<Message>a\nb</Message>'],
  ['an emoji (outside the BMP)', 'a\u{1F600}b', '<Message>a\u{1F600}b</Message>'],
  [']]>', 'a]]>b', '<Message>a]]&gt;b</Message>'],
  ['U+007F, U+0085, U+00A0 and U+2028', 'a\u007F\u0085\u00A0\u2028b', '<Message>a\u007F\u0085\u00A0\u2028b</Message>'],
  ['text that looks like an entity', 'a&amp;b', '<Message>a&amp;amp;b</Message>'],
];

/** `text` in an XML body as the probe sent it: markup and C0 characters as references. */
function xmlBodyText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\u0000-\u001F]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`);
}

/** The host's ` />` and its nil `Meta` (README, deviations: XML empty elements, XML `ResponseStatus`). */
function asThisServiceWritesEmptyElements(hostBody: string): string {
  return hostBody.replace(/<Meta [^>]*\/>/g, '').replace(/ \/>/g, '/>');
}

describe('XML text escaping (as a real 4.5.14 host wrote it)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const ways = {
    'a path value': (text: string) =>
      request(t.app)
        .get(`/v1/echo/${encodeURIComponent(text)}`)
        .set('Accept', 'application/xml'),
    'a query value': (text: string) =>
      request(t.app)
        .get(`/v1/echo/x?Message=${encodeURIComponent(text)}`)
        .set('Accept', 'application/xml'),
    '/xml/reply': (text: string) => request(t.app).get(`/xml/reply/EchoRequest?Message=${encodeURIComponent(text)}`),
    'an XML body': (text: string) =>
      request(t.app)
        .post('/xml/reply/EchoRequest')
        .set('Content-Type', 'application/xml')
        .send(`<EchoRequest xmlns="${TYPES}"><Message>${xmlBodyText(text)}</Message></EchoRequest>`),
  };
  for (const [way, send] of Object.entries(ways)) {
    describe(`echo, the text in ${way}`, () => {
      for (const [name, sent, hostElement] of HOST_TEXT) {
        it(`${name}: ${JSON.stringify(hostElement)}`, async () => {
          const res = await send(sent).expect(200);
          expect(res.headers['content-type']).to.equal('application/xml');
          expect(res.text).to.contain(`<CompanyName>${TEST_COMPANY_NAME}</CompanyName>${hostElement}<ResponseStatus>`);
        });
      }
    });
  }

  it("an XML body's &apos; &quot; and &#xD; come back as ' \" and LF", async () => {
    const res = await request(t.app)
      .post('/xml/reply/EchoRequest')
      .set('Content-Type', 'application/xml')
      .send(`<EchoRequest xmlns="${TYPES}"><Message>a&apos;&quot;&#xD;&#xD;&#xA;b</Message></EchoRequest>`)
      .expect(200);
    expect(res.text).to.contain('<Message>a\'"\n\nb</Message>');
  });

  it('the whole echo answer is the host\'s but for its " />" and Meta: /v1/echo/it\'s"q<', async () => {
    const host =
      '<?xml version="1.0" encoding="utf-8"?><EchoResponse xmlns:i="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xmlns="http://schemas.servicestack.net/types"><CompanyName>Reporting Service</CompanyName>' +
      '<Message>it\'s"q&lt;</Message><ResponseStatus><ErrorCode i:nil="true" /><Message i:nil="true" />' +
      '<StackTrace i:nil="true" /><Errors i:nil="true" /><Meta ' +
      'xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays" i:nil="true" /></ResponseStatus>' +
      '</EchoResponse>';
    const res = await request(t.app).get("/v1/echo/it's%22q%3C").set('Accept', 'application/xml').expect(200);
    expect(res.text).to.equal(asThisServiceWritesEmptyElements(host).replace('Reporting Service', TEST_COMPANY_NAME));
  });

  it('an unknown operation: 405 and the whole host answer but for " />" and Meta (/xml/reply/Nope)', async () => {
    const host =
      '<?xml version="1.0" encoding="utf-8"?><ErrorResponse xmlns:i="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xmlns="http://schemas.servicestack.net/types"><ResponseStatus><ErrorCode>NotImplementedException</ErrorCode>' +
      '<Message>The operation \'Nope\' does not exist for this service</Message><StackTrace i:nil="true" />' +
      '<Errors i:nil="true" /><Meta xmlns:d3p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays" ' +
      'i:nil="true" /></ResponseStatus></ErrorResponse>';
    const res = await request(t.app).get('/xml/reply/Nope').expect(405);
    expect(res.text).to.equal(asThisServiceWritesEmptyElements(host));
  });

  describe('an unknown operation naming the text: 405', () => {
    for (const [name, sent, hostElement] of HOST_TEXT) {
      if (sent.includes('\n') || sent.includes('\r')) continue;
      it(`${name}: ${JSON.stringify(hostElement)}`, async () => {
        const res = await request(t.app)
          .get(`/xml/reply/${encodeURIComponent(sent)}`)
          .expect(405);
        const named = hostElement.slice('<Message>'.length, -'</Message>'.length);
        expect(res.text).to.contain(`<Message>The operation '${named}' does not exist for this service</Message>`);
      });
    }
    it('CR, CR LF and LF in an operation name: LF, as the host wrote them', async () => {
      const res = await request(t.app).get('/xml/reply/a%0Db%0D%0Ac%0Ad').expect(405);
      expect(res.text).to.contain("<Message>The operation 'a\nb\nc\nd' does not exist for this service</Message>");
    });
  });

  it("a bad int: 400, the value's ' and \" as they are, its < escaped, its CR LF as LF", async () => {
    const quoted = await request(t.app)
      .get(`${FLAT}?CompanyId=${encodeURIComponent('1"x\'<')}`)
      .set('Accept', 'application/xml')
      .expect(400);
    // The host: <Message>Unable to bind to request 'GetFlatRequest'</Message> … <FieldName>CompanyId</FieldName>
    // <Message>'1"x'&lt;' is an Invalid value for 'CompanyId'</Message>
    expect(quoted.text).to.contain(
      "<ErrorCode>SerializationException</ErrorCode><Message>Unable to bind to request 'GetFlatRequest'</Message>",
    );
    expect(quoted.text).to.contain(
      "<FieldName>CompanyId</FieldName><Message>'1\"x'&lt;' is an Invalid value for 'CompanyId'</Message>",
    );
    const lines = await request(t.app)
      .get(`${FLAT}?CompanyId=${encodeURIComponent('1\r2\r\n3')}`)
      .set('Accept', 'application/xml')
      .expect(400);
    expect(lines.text).to.contain("<Message>'1\n2\n3' is an Invalid value for 'CompanyId'</Message>");
  });

  describe('deviation: characters XML 1.0 cannot carry (README, "Deliberate deviations")', () => {
    // The host's XmlWriter threw on them after the headers were sent: a 200 (405, 400) whose body stops at the
    // element, e.g. …<CompanyName>Reporting Service</CompanyName><Message> and nothing more: no XML document.
    for (const [name, sent] of [
      ['U+0001', 'a\u0001b'],
      ['U+001F', 'a\u001Fb'],
      ['U+FFFE', 'a\uFFFEb'],
      ['U+FFFF', 'a\uFFFFb'],
    ] as const) {
      it(`${name} becomes U+FFFD in a whole document (the host: a body cut off at <Message>)`, async () => {
        const echo = await request(t.app)
          .get(`/v1/echo/x?Message=${encodeURIComponent(sent)}`)
          .set('Accept', 'application/xml')
          .expect(200);
        expect(echo.text).to.contain('<Message>a\uFFFDb</Message>');
        expect(echo.text).to.match(/<\/EchoResponse>$/);
        const error = await request(t.app)
          .get(`/xml/reply/${encodeURIComponent(sent)}`)
          .expect(405);
        expect(error.text).to.contain("<Message>The operation 'a\uFFFDb' does not exist for this service</Message>");
      });
    }
    it('a lone surrogate cannot be sent: %ED%A0%80 is read as three U+FFFD (the host: two)', async () => {
      // UTF-8 has no surrogates; Node's UTF-8 decoding replaces each byte of the sequence (the WHATWG rule), Mono's
      // decoder answered `<Message>a\uFFFD\uFFFDb</Message>` (and three U+FFFD for %F4%90%80%80, past U+10FFFF,
      // where this service reads four).
      const res = await request(t.app).get('/v1/echo/x?Message=a%ED%A0%80b').set('Accept', 'application/xml');
      expect(res.text).to.contain('<Message>a\uFFFD\uFFFD\uFFFDb</Message>');
    });
    it('&#x1; in an XML body is dropped (the host read it and cut its answer off at <Message>)', async () => {
      const res = await request(t.app)
        .post('/xml/reply/EchoRequest')
        .set('Content-Type', 'application/xml')
        .send(`<EchoRequest xmlns="${TYPES}"><Message>a&#x1;b</Message></EchoRequest>`)
        .expect(200);
      expect(res.text).to.contain('<Message>ab</Message>');
    });
    it('a raw U+FFFE in an XML body is read and written as U+FFFD (the host: 400 SerializationException)', async () => {
      const res = await request(t.app)
        .post('/xml/reply/EchoRequest')
        .set('Content-Type', 'application/xml')
        .send(`<EchoRequest xmlns="${TYPES}"><Message>a\uFFFEb</Message></EchoRequest>`)
        .expect(200);
      expect(res.text).to.contain('<Message>a\uFFFDb</Message>');
    });
  });
});
