/**
 * Red-team finding 2 (issue 15): `StartDate=0100-01-01&EndDate=9999-12-31` built 118,800 monthly columns (an HTML
 * export: 42.5 MB, 20 s with /health blocked), and requests answered 503 at their time-out kept computing.
 */
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../../../src/config.ts';
import { createTestApp } from '../../support/test-app.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { workedExampleBatch } from '../../fixtures/worked-example.ts';

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&IncludeComputedColumns=true';
const fieldsOf = (body: { ResponseStatus: { Errors: { FieldName: string }[] } }) =>
  body.ResponseStatus.Errors.map((e) => e.FieldName);

describe('report limits (issue 15, finding 2)', () => {
  it('the attack range 0100-01-01..9999-12-31 (118,800 months) is a 400 naming StartDate and EndDate', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get(`${FLAT}&StartDate=0100-01-01&EndDate=9999-12-31`);
    expect(res.status).to.equal(400);
    expect(res.body.ResponseStatus.ErrorCode).to.equal('ArgumentException');
    expect(fieldsOf(res.body)).to.deep.equal(['StartDate', 'EndDate']);
    expect(res.body.ResponseStatus.Message).to.contain('118800 months').and.contain('at most 1200');
    await t.close();
  });

  it('the default allows exactly 1200 monthly columns (100 years)', async () => {
    const t = await createTestApp();
    const ok = await request(t.app).get(`${FLAT}&StartDate=1925-01-15&EndDate=2024-12-31`).expect(200);
    expect(ok.body.ReportModel.ColumnNames).to.have.length(1200 + 1); // + Total
    const over = await request(t.app).get(`${FLAT}&StartDate=1924-12-31&EndDate=2024-12-31`).expect(400);
    expect(fieldsOf(over.body)).to.deep.equal(['StartDate', 'EndDate']);
    await t.close();
  });

  it('MAX_REPORT_COLUMNS is configurable, applies to report links too, and cannot exceed what XLSX holds', async () => {
    const wide = await createTestApp();
    const made = await request(wide.app).get(`${FLAT}&StartDate=2023-01-01&EndDate=2024-12-31`).expect(200);
    const token = new URL(made.body.Url).pathname.split('/').pop();
    const t = await createTestApp({ store: wide.store, config: { maxReportColumns: 12 } });
    await request(t.app).get(`${FLAT}&StartDate=2024-01-01&EndDate=2024-12-31`).expect(200);
    const res = await request(t.app).get(`${FLAT}&StartDate=2023-12-01&EndDate=2024-12-31`).expect(400);
    expect(res.body.ResponseStatus.Message).to.contain('at most 12 monthly columns');
    const link = await request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${token}.xlsx`).expect(400);
    expect(fieldsOf(link.body)).to.deep.equal(['StartDate', 'EndDate']);
    expect(loadConfig({ MAX_REPORT_COLUMNS: '16376' }).maxReportColumns).to.equal(16376);
    expect(() => loadConfig({ MAX_REPORT_COLUMNS: '16377' })).to.throw(/MAX_REPORT_COLUMNS must be 1-16376/);
    expect(() => loadConfig({ MAX_REPORT_COLUMNS: '0' })).to.throw(/MAX_REPORT_COLUMNS/);
    await wide.close();
  });

  it('a request that timed out stops its work: no ledger sums are read after the 503', async () => {
    const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
    await store.load(workedExampleBatch);
    const slow = Object.create(store) as LedgerStore;
    let sums = 0;
    slow.getCatalog = async (id) => {
      await new Promise((r) => setTimeout(r, 300));
      return store.getCatalog(id);
    };
    slow.sumPnlByAccountMonth = async (q) => {
      sums++;
      return store.sumPnlByAccountMonth(q);
    };
    const t = await createTestApp({ store: slow, config: { requestTimeoutMs: 100 } });
    try {
      const res = await request(t.app).get(`${FLAT}&StartDate=2024-01-01&EndDate=2024-03-31`).expect(503);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('RequestTimeout');
      await new Promise((r) => setTimeout(r, 500)); // the catalog read ends meanwhile
      expect(sums).to.equal(0);
      const t2 = await createTestApp({ store: slow, config: { requestTimeoutMs: 5000 } });
      await request(t2.app).get(`${FLAT}&StartDate=2024-01-01&EndDate=2024-03-31`).expect(200);
      expect(sums).to.equal(1);
    } finally {
      await store.close();
    }
  });
});
