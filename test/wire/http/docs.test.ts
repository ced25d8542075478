/** /docs, /openapi.json and /openapi.yaml: served locally, outside the legacy 404 handler. */
import { expect } from 'chai';
import request from 'supertest';
import { parse } from 'yaml';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

describe('API docs and the contract itself', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t?.close());

  it(
    '/docs is an HTML page loading Swagger UI from the service, pointing at /openapi.json, linking the ' + 'WSDL',
    async () => {
      const res = await request(t.app).get('/docs');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(res.text).to.contain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
      expect(res.text).to.contain('href="/soap12?wsdl"');
      expect(res.text).to.not.match(/https?:\/\//);
      const init = await request(t.app).get('/docs/docs.js');
      expect(init.text).to.contain("url: '/openapi.json'");
      expect(init.text).to.contain('validatorUrl: null');
      for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
        expect((await request(t.app).get(asset)).status, asset).to.equal(200);
      }
    },
  );

  it('/openapi.json and /openapi.yaml serve the contract with every operation, including GetFlatReport', async () => {
    const json = await request(t.app).get('/openapi.json');
    expect(json.status).to.equal(200);
    expect(json.headers['content-type']).to.equal('application/json; charset=utf-8');
    const doc = JSON.parse(json.text) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .filter(Boolean)
      .sort();
    expect(ids).to.deep.equal([
      'Echo',
      'EchoReplyBatch',
      'EchoReplyGet',
      'EchoReplyPost',
      'GetFlat',
      'GetFlatReplyBatch',
      'GetFlatReplyGet',
      'GetFlatReplyPost',
      'GetFlatReport',
    ]);
    const yaml = await request(t.app).get('/openapi.yaml');
    expect(yaml.status).to.equal(200);
    expect(yaml.headers['content-type']).to.equal('application/yaml; charset=utf-8');
    expect(parse(yaml.text)).to.deep.equal(JSON.parse(json.text));
  });

  it('other unknown paths still get the legacy 404', async () => {
    const res = await request(t.app).get('/docs-nope');
    expect(res.status).to.equal(404);
    expect(res.text).to.equal('404');
  });
});
