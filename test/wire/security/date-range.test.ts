/**
 * Red team round 3 (issue 25), finding 5: `Message=/Date(99999999999999999)/` answered as JSV, as HTML or with
 * `?jsconfig=DateHandler:ISO8601` was a 500 without a key (the writers show a `/Date(ms)/` text as a date, and no Date
 * holds that instant: RangeError, and an error log line per request). The binder now refuses such a value as a 400
 * naming the field, wherever it comes from (query, path, body), and the writers never throw on one.
 */
import { expect } from 'chai';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';
import { MAX_INSTANT_MS } from '../../../src/scalars/dates.ts';

const OUT_OF_RANGE = '/Date(99999999999999999)/';

describe('/Date(ms)/ beyond any Date (issue 25, finding 5)', () => {
  let t: ListeningTestApp;
  before(async () => {
    t = await listenTestApp();
  });
  after(() => t.close());

  const encoded = encodeURIComponent(OUT_OF_RANGE);
  for (const [what, path, init] of [
    ['the query, as JSV', `/jsv/reply/EchoRequest?Message=${encoded}`, {}],
    [
      'the query, with jsconfig=DateHandler:ISO8601',
      `/json/reply/EchoRequest?Message=${encoded}&jsconfig=DateHandler:ISO8601`,
      {},
    ],
    ['the query, as HTML', `/v1/echo/x?Message=${encoded}&format=html`, {}],
    ['the path, as JSV', `/v1/echo/${encoded}.jsv`, {}],
    [
      'a JSON body, with jsconfig=DateHandler:UnixTime',
      '/json/reply/EchoRequest?jsconfig=DateHandler:UnixTime',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ Message: OUT_OF_RANGE }),
      },
    ],
    [
      'a form body, as JSV',
      '/jsv/reply/EchoRequest',
      { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `Message=${encoded}` },
    ],
  ] as const) {
    it(`in ${what}: 400 naming Message`, async () => {
      const res = await fetch(`${t.url}${path}`, {
        ...init,
        headers: { Accept: 'application/json', ...('headers' in init ? init.headers : {}) },
      });
      expect(res.status).to.equal(400);
      const text = (await res.text()).replace(/&#39;|&#x27;/g, "'");
      expect(text).to.contain("'/Date(99999999999999999)/' is an Invalid value for 'Message'");
    });
  }

  it('the largest instant a Date holds binds; the last of year 9999 is echoed as a date', async () => {
    const largest = await fetch(
      `${t.url}/json/reply/EchoRequest?Message=${encodeURIComponent(`/Date(${MAX_INSTANT_MS})/`)}`,
    );
    expect(largest.status).to.equal(200);
    const res = await fetch(`${t.url}/jsv/reply/EchoRequest?Message=${encodeURIComponent('/Date(253402300799999)/')}`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain('Message:9999-12-31T23:59:59.9990000Z');
  });
});
