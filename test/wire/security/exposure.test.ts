/**
 * Red-team finding 9 (issue 15): /docs/assets/ served every stock file of swagger-ui-dist (its index.html opens the
 * petstore demo) with no CSP; /metrics was public with no way to close it.
 */
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../../../src/config.ts';
import { createTestApp } from '../../support/test-app.ts';

describe('exposure (issue 15, finding 9)', () => {
  it('/docs/assets serves only what the docs page loads, each with a CSP; the stock pages are gone', async () => {
    const t = await createTestApp();
    const page = await request(t.app).get('/docs').expect(200);
    expect(page.headers['content-security-policy']).to.contain("script-src 'self'");
    const loaded = [...page.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(loaded).to.include.members([
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/docs/docs.js',
    ]);
    for (const path of loaded) {
      const res = await request(t.app).get(path).expect(200);
      expect(res.headers['content-security-policy'], path).to.equal("default-src 'none'; frame-ancestors 'none'");
    }
    for (const stock of [
      'index.html',
      'swagger-initializer.js',
      'oauth2-redirect.html',
      'swagger-ui.js',
      'package.json',
      'index.js',
      'absolute-path.js',
      '',
    ]) {
      const res = await request(t.app).get(`/docs/assets/${stock}`);
      expect(res.status, stock).to.equal(404);
      expect(res.text, stock).to.not.contain('petstore');
    }
    await t.close();
  });

  it('METRICS=public (default) serves /metrics to anyone; key needs a valid API key; off is a 404', async () => {
    expect(loadConfig({}).metrics).to.equal('public');
    expect(loadConfig({ METRICS: 'KEY' }).metrics).to.equal('key');
    expect(() => loadConfig({ METRICS: 'private' })).to.throw(/METRICS must be one of off, public, key/);

    const open = await createTestApp();
    await request(open.rawApp).get('/metrics').expect(200);
    await open.close();

    const keyed = await createTestApp({ config: { metrics: 'key' } });
    const anonymous = await request(keyed.rawApp).get('/metrics').expect(401);
    expect(anonymous.body.ResponseStatus.ErrorCode).to.equal('Unauthorized');
    expect(anonymous.text).to.not.contain('http_requests_total');
    await request(keyed.rawApp).get('/metrics').set('X-ApiKey', 'rsk_not_a_key').expect(401);
    const other = await keyed.keyFor(2); // any company's key will do
    const scraped = await request(keyed.rawApp).get('/metrics').set('Authorization', `Bearer ${other}`).expect(200);
    expect(scraped.text).to.contain('http_requests_total');
    await keyed.close();

    const off = await createTestApp({ config: { metrics: 'off' } });
    await request(off.rawApp).get('/metrics').expect(404);
    await off.close();
  });
});
