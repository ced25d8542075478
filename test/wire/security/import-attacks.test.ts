/**
 * The CSV import's red-team findings (issue 15) on DuckDB (test/support/import-attacks-suite.ts), reports answerable
 * after refused imports, and a journal read as a stream.
 */
import { expect } from 'chai';
import { Readable } from 'node:stream';
import request from 'supertest';
import { CsvImportError, importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { JOURNAL_1, REFERENCE_1, attacks, q } from '../../support/import-attacks-suite.ts';
import { createTestApp } from '../../support/test-app.ts';

attacks('DuckDB', () => DuckDbLedgerStore.open(':memory:'));

describe('import attacks: the reports stay answerable', () => {
  it('after a refused time zone and a refused overflow, reports of the company are 200, not 500', async () => {
    const store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    await importLedgerCsv(store, JOURNAL_1, { reference: REFERENCE_1 });
    await importLedgerCsv(store, JOURNAL_1, { reference: REFERENCE_1.replace('America/New_York', 'Not/AZone') }).catch(
      () => undefined,
    );
    const t = await createTestApp({ store });
    await request(t.app).get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1').expect(200);
    await store.close();
  });
});

describe('streamed import (finding 8: the journal is read as a stream)', () => {
  const chunked = (text: string, size: number) =>
    Readable.from(
      Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        Buffer.from(text.slice(i * size, (i + 1) * size)),
      ),
    );

  it('a journal arriving in small chunks (rows split anywhere) loads the same figures as the whole text', async () => {
    const [whole, streamed] = [await DuckDbLedgerStore.open(':memory:'), await DuckDbLedgerStore.open(':memory:')];
    for (const s of [whole, streamed]) await s.migrate();
    await importLedgerCsv(whole, JOURNAL_1, { reference: REFERENCE_1 });
    expect(await importLedgerCsv(streamed, chunked(JOURNAL_1, 7), { reference: REFERENCE_1 })).to.equal(2);
    expect(await streamed.sumPnlByAccountMonth(q(1))).to.deep.equal(await whole.sumPnlByAccountMonth(q(1)));
    await Promise.all([whole.close(), streamed.close()]);
  });

  it('errors from a stream name their line as before: a bad row, a malformed CSV, a missing column', async () => {
    const store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    await importLedgerCsv(store, 'entry,date,location,account,amount\n', { reference: REFERENCE_1 });
    const cases: [string, RegExp][] = [
      [JOURNAL_1.replace('P1,2024-01-20,10,5000,300', 'P1,2024-01-20,10,5000,3.001'), /^line 4: amount "3.001"/],
      [`${JOURNAL_1}X1,2024-01-05,10,"4000,-1\n`, /^line 6: malformed CSV/],
      ['entry,date,location,amount\nS1,2024-01-05,10,1\n', /^line 1: missing column\(s\): account/],
      ['entry,date,location,amount\n', /^line 1: missing column\(s\): account/],
    ];
    for (const [csv, pattern] of cases) {
      const err = await importLedgerCsv(store, chunked(csv, 5), { companyId: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, csv).to.be.instanceOf(CsvImportError);
      expect((err as Error).message, csv).to.match(pattern);
    }
    expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal([]);
    await store.close();
  });
});
