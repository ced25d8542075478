/**
 * Conditional GET of the report operations over the embedded DuckDB store (the shared suite), and what is DuckDB's
 * own: a store opened again (a restart) never answers 304 to a tag of the run before, and /metrics counts the sums;
 * the SOAP endpoint is left as it was.
 */
import { expect } from 'chai';
import request from 'supertest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../../../src/store/open-store.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';
import { REPORT, conditionalGetSuite, get, sums, tagOf } from '../../support/conditional-get-suite.ts';
import { soap12Envelope } from '../../support/soap.ts';
import { createTestApp } from '../../support/test-app.ts';

describe('conditional GET of the reports, over DuckDB', function () {
  this.timeout(60_000);
  conditionalGetSuite(() => createTestApp());

  it('a store opened again (a restart) has new tags: the old one gets 200', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'etag-'));
    const duckdbPath = path.join(dataDir, 'ledger.duckdb');
    try {
      const first = await openStore({ dataDir, duckdbPath });
      await first.load(workedExampleBatch);
      const before = await createTestApp({ store: first });
      const tag = await tagOf(before.app, REPORT);
      await first.close();
      const again = await openStore({ dataDir, duckdbPath });
      try {
        const after = await createTestApp({ store: again });
        const res = await get(after.app, REPORT, { 'If-None-Match': tag });
        expect(res.status).to.equal(200);
        expect(res.headers.etag).to.not.equal(tag);
      } finally {
        await again.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the SOAP endpoint is left alone: If-None-Match changes nothing, no ETag', async () => {
    const t = await createTestApp();
    try {
      const envelope = soap12Envelope('<GetFlatRequest xmlns="http://schemas.servicestack.net/types"/>');
      const post = (headers: Record<string, string>) =>
        request(t.app).post('/soap12').set('Content-Type', 'application/soap+xml').set(headers).send(envelope);
      const [plain, conditional] = [await post({}), await post({ 'If-None-Match': '*' })];
      expect(conditional.status).to.equal(plain.status);
      expect(conditional.text).to.equal(plain.text);
      expect(conditional.headers.etag).to.equal(undefined);
    } finally {
      await t.close();
    }
  });

  it('/metrics exports the sums the store answered (reporting_pnl_sums_total)', async () => {
    const t = await createTestApp({ config: { metrics: 'public' } });
    try {
      const tag = await tagOf(t.app, REPORT);
      expect((await get(t.app, REPORT, { 'If-None-Match': tag })).status).to.equal(304);
      const metrics = await get(t.app, '/metrics');
      const exported = /^reporting_pnl_sums_total (\d+)$/m.exec(metrics.text)?.[1];
      expect(Number(exported)).to.equal(sums(t)).and.equal(1);
    } finally {
      await t.close();
    }
  });
});
