import { expect } from 'chai';
import request from 'supertest';
import { openStore } from '../../../src/store/open-store.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';
import { createTestApp } from '../../support/test-app.ts';

async function appWithClosedStore(debug: boolean) {
  const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
  await store.load(workedExampleBatch);
  const t = await createTestApp({ store, debug });
  await store.close(); // the store fails under the running app, as a crashed database would
  return t;
}

describe('unhandled faults', () => {
  it('When the store fails, then 500 with a ResponseStatus that hides internals and has no stack trace', async () => {
    const t = await appWithClosedStore(false);
    const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(500);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    // The key lookup fails before the service runs: no Errors key, as 4.5 wrote errors raised before the service.
    expect(res.body).to.deep.equal({
      ResponseStatus: { ErrorCode: 'Exception', Message: 'An unexpected error occurred.' },
    });
  });

  it('When debug mode is on, then the 500 carries the real message and a StackTrace', async () => {
    const t = await appWithClosedStore(true);
    const res = await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(500);
    expect(res.body.ResponseStatus.ErrorCode).to.equal('Exception');
    expect(res.body.ResponseStatus.Message).to.not.equal('An unexpected error occurred.');
    expect(res.body.ResponseStatus.StackTrace)
      .to.be.a('string')
      .and.match(/^\[GetFlatRequest: \d{4}-\d\d-\d\dT[^\]]+\]:\n/);
    expect(res.body.ResponseStatus.StackTrace).to.contain(res.body.ResponseStatus.Message);
  });

  it('When debug mode is on, then an unknown route answers the detailed text/plain 404', async () => {
    const t = await createTestApp({ debug: true });
    const res = await request(t.app).get('/nowhere?x=1').expect(404);
    expect(res.headers['content-type']).to.equal('text/plain');
    expect(res.text).to.match(/^Handler for Request not found \(404\):/);
    expect(res.text).to.contain('Request.RawUrl: /nowhere?x=1');
    await t.close();
  });

  it('When a request fails, then the process keeps serving the next one', async () => {
    const t = await createTestApp();
    await request(t.app)
      .post('/json/reply/GetFlatRequest')
      .set('Content-Type', 'application/json')
      .send('{')
      .expect(400);
    await request(t.app).get('/v1/echo/still-here').expect(200);
    await t.close();
  });
});
