/** Access logs: one structured line per request with its id; API keys never reach the log. */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

describe('access log', () => {
  const lines: Record<string, unknown>[] = [];
  let t: TestApp;
  before(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({ logger: pino({ level: 'info' }, sink) });
  });
  after(() => t.close());

  it(
    'When a request carries its key as a header or as ?apikey=, then the log has the request id and never the ' + 'key',
    async () => {
      const res = await request(t.rawApp)
        .get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&apikey=${encodeURIComponent(t.apiKey)}`)
        .expect(200);
      await request(t.rawApp).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').set('X-ApiKey', t.apiKey).expect(200);
      await request(t.rawApp)
        .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1')
        .set('Authorization', `Bearer ${t.apiKey}`)
        .expect(200);
      const text = JSON.stringify(lines);
      expect(text).to.not.contain(t.apiKey);
      const logged = lines.find((l) => (l.req as { id?: string } | undefined)?.id === res.headers['x-request-id']);
      expect((logged?.req as { url?: string } | undefined)?.url).to.equal(
        '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&apikey=[redacted]',
      );
      expect((logged?.res as { statusCode?: number } | undefined)?.statusCode).to.equal(200);
    },
  );
});
