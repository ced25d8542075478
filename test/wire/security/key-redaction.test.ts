/**
 * Red-team finding 8 (issue 15): `?api%6Bey=<key>` authenticated but was logged in clear (redaction matched the raw
 * text); near-misses (`api_key=`, a key under another name or in the path) were logged in clear. Revocation with the
 * server running: test/system/security/key-revocation.test.ts.
 */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { redactApiKey } from '../../../src/auth/api-keys.ts';
import { createTestApp } from '../../support/test-app.ts';

describe('API keys in logs (issue 15, finding 8)', () => {
  it('a key sent as ?api%6Bey= (it authenticates) or under near-miss names never reaches the access log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await createTestApp({ logger: pino({ level: 'info' }, sink) });
    const key = t.apiKey;
    const encoded = encodeURIComponent(key);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&api%6Bey=${encoded}`).expect(200);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&API%5FKEY=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&x=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&token=${encoded}`).expect(401);
    await request(t.rawApp).get(`/v1/echo/${encoded}`).expect(200);
    await request(t.rawApp)
      .get(`/v1/echo/${key.replace('_', '%5F')}`)
      .expect(200);
    const text = lines.join('');
    expect(text).to.contain('api%6Bey=[redacted]');
    expect(text).to.not.contain(key);
    expect(text).to.not.contain(encoded);
    expect(text).to.not.contain(key.slice(4)); // the random part, in any encoding of the prefix
    await t.close();
  });

  it('redaction keeps everything else of the URL as sent', () => {
    expect(
      redactApiKey('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=[1,2]&apikey=abc&format=json'),
    ).to.equal('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=[1,2]&apikey=[redacted]&format=json');
    expect(redactApiKey('/v1/echo/hello?callback=fn')).to.equal('/v1/echo/hello?callback=fn');
    expect(redactApiKey('/x?api+key=1&%ZZ=2&Api-Key=3')).to.equal('/x?api+key=[redacted]&%ZZ=2&Api-Key=[redacted]');
  });
});
