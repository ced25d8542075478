/**
 * A real PostgreSQL server stopped under a running app: requests during the outage answer 503 StoreUnavailable
 * (ResponseStatus), /ready answers 503, nothing crashes; once the server is back the app answers 200 by itself.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

const REPORT =
  '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29';

(skipPostgres ? describe.skip : describe)('PostgreSQL stopped and started during requests', function () {
  this.timeout(120_000);
  let server: PostgresServer | undefined;
  let store: LedgerStore | undefined;
  let t: TestApp;
  before(async () => {
    server = await startPostgresServer('outage_test');
    store = new PostgresLedgerStore(server.url, { connectionTimeoutMillis: 1_000 });
    await store.migrate();
    await store.load(workedExampleBatch);
    t = await createTestApp({ store });
  });
  after(async () => {
    await store?.close();
    await server?.destroy();
  });

  it('serves, answers 503 during the outage, and recovers by itself', async () => {
    // In flight while the server stops: some requests complete, the others fail with 503, none with anything else.
    const inFlight = Array.from({ length: 20 }, () => request(t.app).get(REPORT));
    await request(t.app).get(REPORT).expect(200);
    await server!.stop();
    const during = await Promise.all(inFlight);
    for (const res of during) expect(res.status, res.text).to.be.oneOf([200, 503]);

    for (const path of [REPORT, '/json/reply/GetFlatRequest?CompanyId=1']) {
      const res = await request(t.app).get(path).expect(503);
      // The key lookup is the first store call, so the outage is raised at authentication, before the service:
      // no Errors key, as 4.5 wrote errors raised in its request filters.
      expect(res.body).to.deep.equal({
        ResponseStatus: { ErrorCode: 'StoreUnavailable', Message: 'The ledger store is unavailable; retry later.' },
      });
    }
    const post = await request(t.app).post('/json/reply/GetFlatRequest').send({ CompanyId: 1 }).expect(503);
    expect(post.body.ResponseStatus.ErrorCode).to.equal('StoreUnavailable');
    expect((await request(t.app).get('/ready').expect(503)).body.ResponseStatus.ErrorCode).to.equal('StoreUnavailable');
    await request(t.app).get('/health').expect(200);
    await request(t.app).get('/v1/echo/still-up').expect(200); // no key, no store: echo stays up

    await server!.start();
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await request(t.app).get(REPORT)).status;
      if (status === 200) break;
      expect(status).to.equal(503);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).to.equal(200);
    await request(t.app).get('/ready').expect(200);
    const after = await Promise.all(Array.from({ length: 10 }, () => request(t.app).get(REPORT)));
    expect(after.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
  });
});
