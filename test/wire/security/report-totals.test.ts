/**
 * Red team round 3 (issue 25), finding 6: each account-month is capped at 2^53 - 1 cents at import, but sums across
 * months or accounts left the range doubles hold exactly, and the report printed them a cent or two off
 * (`…319.84` where the ledger holds `…319.82`). Every figure is now an exact sum, and a report with a figure beyond
 * ±9,999,999,999,999.99 (15 significant digits: what a JSON number and a spreadsheet cell hold) is refused.
 */
import { expect } from 'chai';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { MAX_REPORT_CENTS, sumCents } from '../../../src/reports/money.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

const REFERENCE = `kind,id,company_id,name,type,number,time_zone
company,1,,Company One,,,UTC
location,10,1,Downtown,,,
account,1000,1,Cash,Bank,1000,
account,1010,1,Petty Cash,Bank,1010,
account,4000,1,Sales,Income,4000,
account,4100,1,Catering,Income,4100,
`;
/** Sales of `amount` in January and February 2024 on account 4000, and `other` in January on 4100. */
const journal = (amount: string, other = '0.01') => `entry,date,location,account,amount
S1,2024-01-05,10,4000,-${amount}
S1,2024-01-05,10,1000,${amount}
S2,2024-02-05,10,4000,-${amount}
S2,2024-02-05,10,1000,${amount}
S3,2024-01-06,10,4100,-${other}
S3,2024-01-06,10,1010,${other}
`;

async function serve(amount: string, other?: string): Promise<ListeningTestApp> {
  const store = await DuckDbLedgerStore.open(':memory:');
  await store.migrate();
  await importLedgerCsv(store, journal(amount, other), { reference: REFERENCE });
  return listenTestApp({ store });
}

const QUERY = 'CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29&IncludeComputedColumns=true';

describe('report totals exact or refused (issue 25, finding 6)', () => {
  let t: ListeningTestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it(
    'two months of 2^53 - 1 cents (the attack: the Total printed …319.84) is refused with a 400 naming the ' + 'bound',
    async () => {
      t = await serve('90071992547409.91');
      const res = await fetch(`${t.url}/v1/Reporting/ProfitAndLoss/Flat?${QUERY}`, {
        headers: { 'X-ApiKey': t.apiKey },
      });
      expect(res.status).to.equal(400);
      const body = (await res.json()) as { ResponseStatus: { ErrorCode: string; Message: string } };
      expect(body.ResponseStatus.ErrorCode).to.equal('ArgumentException');
      expect(body.ResponseStatus.Message).to.contain('beyond ±9999999999999.99');
    },
  );

  it(
    'figures up to the bound are exact in JSON and CSV: 4,999,999,999,999.99 twice plus 0.01 totals ' +
      '9,999,999,999,999.99',
    async () => {
      t = await serve('4999999999999.99', '0.01');
      const res = await fetch(`${t.url}/v1/Reporting/ProfitAndLoss/Flat?${QUERY}`, {
        headers: { 'X-ApiKey': t.apiKey },
      });
      expect(res.status).to.equal(200);
      const text = await res.text();
      expect(text).to.contain('9999999999999.99').and.to.contain('5000000000000');
      const { Url } = JSON.parse(text) as { Url: string };
      const csv = await (await fetch(`${Url}.csv`, { headers: { 'X-ApiKey': t.apiKey } })).text();
      const income = csv.split('\r\n').find((line) => line.startsWith('SectionTotal,Income,'));
      expect(income).to.match(/,5000000000000\.00,4999999999999\.99,9999999999999\.99$/);
    },
  );

  it('one cent more than the bound is refused', async () => {
    t = await serve('5000000000000.00');
    const res = await fetch(`${t.url}/v1/Reporting/ProfitAndLoss/Flat?${QUERY}`, { headers: { 'X-ApiKey': t.apiKey } });
    expect(res.status).to.equal(400);
  });

  it('sumCents is exact past 2^53 partial sums (BigInt) and refuses only the final figure', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(sumCents([max, max, -max, -max, 7])).to.equal(7);
    expect(sumCents([MAX_REPORT_CENTS, 0])).to.equal(MAX_REPORT_CENTS);
    expect(() => sumCents([max, max])).to.throw('beyond ±9999999999999.99');
  });
});
