/**
 * An import that renames a company shows the new name in every answer at once: echo's CompanyName for a key of that
 * company agrees with the report's, on DuckDB (the importing process), with no cache of names in between.
 */
import { expect } from 'chai';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import { JOURNAL, RENAME, echoName, reportName } from '../../support/company-names.ts';
import { createTestApp } from '../../support/test-app.ts';

describe('names after an import', function () {
  this.timeout(120_000);

  it('When an import renames the company on DuckDB, then echo names it at once, as the report does', async () => {
    const test = await createTestApp();
    try {
      const key = await test.keyFor(1);
      const before = await echoName(test, key);
      expect(before).to.equal(await reportName(test));
      await importLedgerCsv(test.store, JOURNAL, { reference: RENAME, companyId: 1 });
      expect(await echoName(test, key)).to.equal('Renamed Bistro');
      expect(await reportName(test)).to.equal('Renamed Bistro');
    } finally {
      await test.close();
    }
  });
});
