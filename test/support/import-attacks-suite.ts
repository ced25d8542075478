/**
 * Red-team findings 3, 6 and 7 (issue 15) on the CSV import: a reference file reusing another company's ids moved
 * them; re-importing a journal doubled every figure; a bad time zone, or an account-month past 2^53 cents, was accepted
 * and then every report of the company was a 500. Each is now an import error naming its line, and nothing is written.
 * A suite each store runs: test/wire/security/import-attacks.test.ts and
 * test/system/security/import-attacks-postgres.test.ts.
 */
import { expect } from 'chai';
import { CsvImportError, importLedgerCsv } from '../../src/store/import/csv-import.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import type { PnlQuery } from '../../src/domain/ledger.ts';

export const REFERENCE_1 = `kind,id,company_id,name,type,number,time_zone
company,1,,Company One,,,America/New_York
location,10,1,One Downtown,,,
account,1000,1,Cash,Bank,1000,
account,4000,1,Sales,Income,4000,
account,5000,1,Food Cost,COGS,5000,
`;
export const JOURNAL_1 = `entry,date,location,account,amount
S1,2024-01-05,10,4000,-1000.00
S1,2024-01-05,10,1000,1000.00
P1,2024-01-20,10,5000,300
P1,2024-01-20,10,1000,-300
`;
/** Company 3's reference file reusing company 1's account 4000 and location 10 (the attack). */
const REFERENCE_3_HIJACK = `kind,id,company_id,name,type,number,time_zone
company,3,,Company Three,,,UTC
location,30,3,Three Main,,,
location,10,3,Taken Over,,,
account,3000,3,Cash,Bank,3000,
account,4000,3,Sales Three,Income,4000,
`;
const JOURNAL_3 = `entry,date,location,account,amount
T1,2024-01-07,30,4000,-50
T1,2024-01-07,30,3000,50
`;

export const q = (companyId: number): PnlQuery => ({
  companyId,
  from: '2024-01-01',
  to: '2024-12-31',
  locationIds: [],
  optionGroups: [],
});

async function importError(
  store: LedgerStore,
  journal: string,
  reference?: string,
  companyId?: number,
): Promise<CsvImportError> {
  const err = await importLedgerCsv(store, journal, { reference, companyId }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the import should have been refused').to.be.instanceOf(CsvImportError);
  return err as CsvImportError;
}

export function attacks(name: string, open: () => Promise<LedgerStore>): void {
  describe(`import attacks: ${name}`, () => {
    let store: LedgerStore;
    beforeEach(async () => {
      store = await open();
      await store.migrate();
      await importLedgerCsv(store, JOURNAL_1, { reference: REFERENCE_1 });
    });
    afterEach(() => store.close());

    it(
      "finding 3: company 3's reference file reusing company 1's account and location ids is refused at its line; " +
        'nothing moves',
      async () => {
        const before = { catalog: await store.getCatalog(1), sums: await store.sumPnlByAccountMonth(q(1)) };
        const err = await importError(store, JOURNAL_3, REFERENCE_3_HIJACK);
        expect(err.file).to.equal('reference');
        expect(err.message).to.match(
          /^reference line 4: location 10 belongs to company 1; this import is for company 3/,
        );
        expect(await store.getCatalog(1)).to.deep.equal(before.catalog);
        expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(before.sums);
        expect(await store.getCatalog(3)).to.equal(undefined);
        // The same file with fresh ids is accepted.
        const clean = REFERENCE_3_HIJACK.replace('location,10,3,Taken Over', 'location,31,3,Own').replace(
          'account,4000,3,Sales Three,Income,4000',
          'account,4300,3,Sales Three,Income,4300',
        );
        expect(await importLedgerCsv(store, JOURNAL_3.replace(/,4000,/g, ',4300,'), { reference: clean })).to.equal(1);
        expect(await store.getCatalog(1)).to.deep.equal(before.catalog);
      },
    );

    it(
      'finding 3: an id of another company is refused for each kind (account, tracking category, tracking ' + 'option)',
      async () => {
        const hijack = 'kind,id,company_id,name,type\ncompany,3,,C3,\naccount,5000,3,X,COGS\n';
        expect((await importError(store, 'entry,date,location,account,amount\n', hijack)).message).to.match(
          /^reference line 3: account 5000 belongs to company 1/,
        );
        await importLedgerCsv(store, 'entry,date,location,account,amount\n', {
          reference:
            'kind,id,company_id,name,category_id\ntracking_category,6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60,1,Channel,' +
            '\ntracking_option,0a1b2c3d4e5f60718293a4b5c6d7e8f9,,DineIn,6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60\n',
        });
        const options =
          'kind,id,company_id,name,category_id\ncompany,3,,C3,\ntracking_category,' +
          '6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60,3,Taken,\n';
        expect((await importError(store, 'entry,date,location,account,amount\n', options)).message).to.match(
          /^reference line 3: tracking category 6f1c2a0e9b7d4c3e8a5f1b2c3d4e5f60 belongs to company 1/,
        );
        const option =
          'kind,id,company_id,name,category_id\ncompany,3,,C3,\ntracking_category,' +
          '11111111111111111111111111111111,3,Mine,\ntracking_option,0a1b2c3d4e5f60718293a4b5c6d7e8f9,,Taken,' +
          '11111111111111111111111111111111\n';
        expect((await importError(store, 'entry,date,location,account,amount\n', option)).message).to.match(
          /^reference line 4: tracking option 0a1b2c3d4e5f60718293a4b5c6d7e8f9 belongs to company 1/,
        );
      },
    );

    it(
      'finding 6: re-importing the same journal is refused at the first repeated entry; figures are not ' + 'doubled',
      async () => {
        const before = await store.sumPnlByAccountMonth(q(1));
        const err = await importError(store, JOURNAL_1, undefined, 1);
        expect(err.message).to.match(/^line 2: entry S1 was already imported for company 1/);
        expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(before);
        // A journal that repeats one old entry among new ones is refused whole.
        const mixed =
          `${JOURNAL_1.split('\n')[0]}\nN1,2024-02-01,10,4000,-5\nN1,2024-02-01,10,1000,5\nP1,2024-01-20,10,5000,` +
          `300\nP1,2024-01-20,10,1000,-300\n`;
        expect((await importError(store, mixed, undefined, 1)).message).to.match(
          /^line 4: entry P1 was already imported/,
        );
        expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(before);
        // Entry ids are per company: company 3 may use S1 too.
        await importLedgerCsv(store, 'entry,date,location,account,amount\n', {
          reference:
            'kind,id,company_id,name,type\ncompany,3,,C3,\nlocation,30,3,L,\naccount,3000,3,Cash,Bank\naccount,' +
            '3400,3,Sales,Income\n',
        });
        expect(
          await importLedgerCsv(
            store,
            'entry,date,location,account,amount\nS1,2024-01-05,30,3400,-1\nS1,2024-01-05,30,3000,1\n',
            { companyId: 3 },
          ),
        ).to.equal(1);
      },
    );

    it(
      'finding 6: with --replace, a re-imported entry replaces the earlier one (figures as the new journal, never ' +
        'doubled)',
      async () => {
        const fresh = await open();
        await fresh.migrate();
        // The whole journal anew under other amounts, plus one new entry: equal to loading the new journal alone.
        const revised =
          JOURNAL_1.replace('-1000.00', '-1200.00').replace('1000.00\n', '1200.00\n') +
          'N1,2024-03-03,10,5000,7\nN1,2024-03-03,10,1000,-7\n';
        await importLedgerCsv(fresh, revised, { reference: REFERENCE_1 });
        // DuckDB: its in-memory index is built now, then kept in step.
        const before = await store.sumPnlByAccountMonth(q(1));
        expect(await importLedgerCsv(store, revised, { companyId: 1, replace: true })).to.equal(3);
        expect(await store.sumPnlByAccountMonth(q(1))).to.not.deep.equal(before);
        expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(await fresh.sumPnlByAccountMonth(q(1)));
        expect(await store.sumPnlByAccountMonth({ ...q(1), from: '2024-01-05', to: '2024-01-19' })).to.deep.equal(
          await fresh.sumPnlByAccountMonth({ ...q(1), from: '2024-01-05', to: '2024-01-19' }),
        );
        // Replacing again is idempotent; without the flag it is still refused.
        await importLedgerCsv(store, revised, { companyId: 1, replace: true });
        expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(await fresh.sumPnlByAccountMonth(q(1)));
        expect((await importError(store, revised, undefined, 1)).message).to.match(
          /^line 2: entry S1 was already imported/,
        );
        await fresh.close();
      },
    );

    it(
      'finding 7: a time zone that is not IANA is refused at its line (every report of the company was a ' + '500)',
      async () => {
        const err = await importError(
          store,
          'entry,date,location,account,amount\n',
          'kind,id,company_id,name,time_zone\ncompany,4,,Bad Zone,Not/AZone\n',
        );
        expect(err.message).to.match(/^reference line 2: company 4: time zone "Not\/AZone" is not an IANA time zone/);
        expect(await store.getCatalog(4)).to.equal(undefined);
      },
    );

    it('finding 7: an account-month past 2^53 cents is refused at its line, even when each line is safe', async () => {
      const big = '90071992547409.91'; // 2^53 - 1 cents: safe alone, not twice
      const journal =
        `entry,date,location,account,amount\nB1,2024-03-01,10,4000,-${big}\nB1,2024-03-01,10,1000,${big}\nB2,` +
        `2024-03-02,10,4000,-${big}\nB2,2024-03-02,10,1000,${big}\n`;
      const before = await store.sumPnlByAccountMonth(q(1));
      const err = await importError(store, journal, undefined, 1);
      expect(err.message).to.match(/^line 3: account 1000 would total more than 2\^53 - 1 cents in 2024-03/);
      expect(await store.sumPnlByAccountMonth(q(1))).to.deep.equal(before);
    });
  });
}
