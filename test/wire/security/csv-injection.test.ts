/**
 * Red team round 3 (issue 25), finding 3: the CSV formula guard (a leading apostrophe before `= + - @`, tab, CR) was
 * bypassed by a bare CR or LF inside a cell: csv-stringify quoted only cells holding the whole CRLF delimiter, so a
 * spreadsheet started a new row at the bare line break, where `=cmd|' /C calc'!A0` was a formula. Reflected without a
 * key through echo, and stored through an imported account name into the report's CSV. Every answer is read here as a
 * spreadsheet reads it (CR, LF and CRLF all end a row outside quotes): no cell may start a formula.
 */
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { importLedgerCsv } from '../../../src/store/import/csv-import.ts';
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

const PAYLOAD = "=cmd|' /C calc'!A0";
const FORMULA_START = /^[=+\-@\t\r]/;

/** The cells as Excel or LibreOffice split them: any of CRLF, LF or CR ends a row outside quotes. */
function spreadsheetCells(text: string): string[][] {
  return parse(text, { record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true }) as string[][];
}

function expectNoFormula(text: string): string[][] {
  const rows = spreadsheetCells(text);
  const formulas = rows.flat().filter((cell) => FORMULA_START.test(cell));
  expect(formulas, `cells a spreadsheet would run:\n${text}`).to.deep.equal([]);
  return rows;
}

describe('CSV formula injection through line breaks (issue 25, finding 3)', () => {
  let t: ListeningTestApp;
  before(async () => {
    const store = await DuckDbLedgerStore.open(':memory:');
    await store.migrate();
    await importLedgerCsv(
      store,
      `entry,date,location,account,amount
S1,2024-01-05,10,4000,-1000.00
S1,2024-01-05,10,1000,1000.00
`,
      {
        reference: `kind,id,company_id,name,type,number,time_zone
company,1,,Company One,,,UTC
location,10,1,Downtown,,,
account,1000,1,Cash,Bank,1000,
account,4000,1,"Sales\n${PAYLOAD.replace(/"/g, '""')}",Income,4000,
`,
      },
    );
    t = await listenTestApp({ store });
  });
  after(() => t.close());

  for (const breaker of ['\n', '\r', '\r\n']) {
    const shown = JSON.stringify(breaker);
    it(`a reflected echo message x${shown}${PAYLOAD} is one quoted cell (no key needed)`, async () => {
      const message = `x${breaker}${PAYLOAD}`;
      const res = await fetch(`${t.url}/csv/reply/EchoRequest?Message=${encodeURIComponent(message)}`);
      expect(res.status).to.equal(200);
      const rows = expectNoFormula(await res.text());
      expect(rows).to.have.length(2);
      expect(rows[1]![0]).to.equal(message);
    });
  }

  it('a stored account name with a line break is one quoted cell in the report CSV and in the DTO CSV', async () => {
    const query = 'CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-12-31';
    const json = await fetch(`${t.url}/v1/Reporting/ProfitAndLoss/Flat?${query}`, {
      headers: { 'X-ApiKey': t.apiKey },
    });
    expect(json.status).to.equal(200);
    const { Url } = (await json.json()) as { Url: string };
    const report = await fetch(`${Url}.csv`, { headers: { 'X-ApiKey': t.apiKey } });
    expect(report.status).to.equal(200);
    const rows = expectNoFormula(await report.text());
    expect(rows.flat().filter((cell) => cell.includes('calc'))).to.deep.equal([
      `4000 Sales\n${PAYLOAD}`,
      `Income:Sales\n${PAYLOAD}`,
    ]);

    const dto = await fetch(`${t.url}/csv/reply/GetFlatRequest?${query}`, { headers: { 'X-ApiKey': t.apiKey } });
    expect(dto.status).to.equal(200);
    expect(expectNoFormula(await dto.text())).to.have.length(2);
  });
});
