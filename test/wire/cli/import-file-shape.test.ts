/**
 * `npm run import` on a file that is not a comma-separated ledger CSV: the message says what the file looks like and
 * what the import expected (src/store/import/ledger-file-shape.ts, read before the CSV parser), and nothing is
 * loaded. Also the check itself on the shapes a user's export produces, and a well-formed stream passing through it
 * whole.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foreignShapeOf } from '../../../src/store/import/ledger-file-shape.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

const EXPECTED =
  /expected a comma-separated CSV file whose first line is the header entry,date,location,account,amount/;

function importFile(
  file: string,
  dataDir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/import.ts', file, ...args],
      { cwd: REPO_ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', DEBUG: '' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('import: files of another shape', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'import-shape-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'When the journal is a JSON file, then the command says it looks like JSON and what was expected, exit ' + '1',
    async () => {
      writeFileSync(
        join(dir, 'ledger.json'),
        '[{"entry":"A1","date":"2025-01-05","location":10,"account":4000,"amount":-10}]\n',
      );
      const { code, stderr, stdout } = await importFile(join(dir, 'ledger.json'), join(dir, 'data'));
      expect(code).to.equal(1);
      expect(stderr.trim()).to.match(
        /ledger\.json: line 1: the journal file looks like JSON \(it starts with '\['\): export the ledger as CSV; /,
      );
      expect(stderr).to.match(EXPECTED);
      expect(stderr).not.to.match(/Invalid Opening Quote|^\s+at /m);
      expect(stdout).to.equal('');
    },
  );

  it(
    'When the journal is separated by semicolons, then the command names the separator and shows the header it ' +
      'read',
    async () => {
      writeFileSync(
        join(dir, 'semicolons.csv'),
        'entry;date;location;account;amount\nA1;2025-01-05;10;4000;-10,00\nA1;2025-01-05;10;1000;10,00\n',
      );
      const { code, stderr } = await importFile(join(dir, 'semicolons.csv'), join(dir, 'data'));
      expect(code).to.equal(1);
      expect(stderr.trim()).to.match(
        new RegExp(
          String.raw`semicolons\.csv: line 1: the journal file is separated by ';' ` +
            String.raw`\(its header: 'entry;date;location;account;amount'\): save it with commas as separators; `,
        ),
      );
      expect(stderr)
        .to.match(EXPECTED)
        .and.not.to.match(/missing column/);
    },
  );

  it(
    'When the reference file is a spreadsheet, then the command names the reference file and says to save it as ' +
      'CSV',
    async () => {
      writeFileSync(join(dir, 'journal.csv'), 'entry,date,location,account,amount\n');
      writeFileSync(join(dir, 'reference.xlsx'), Buffer.from('504b0304140000000800', 'hex'));
      const { code, stderr } = await importFile(
        join(dir, 'journal.csv'),
        join(dir, 'data'),
        '--reference',
        join(dir, 'reference.xlsx'),
      );
      expect(code).to.equal(1);
      expect(stderr.trim()).to.match(
        new RegExp(
          String.raw`reference\.xlsx: reference line 1: the reference file is a ZIP archive \(an XLSX workbook\?\): ` +
            'save the sheet as CSV; expected a comma-separated CSV file ' +
            'whose first line is the header kind,id,company_id,name',
        ),
      );
    },
  );

  it('When a file is empty, XML, or tab-separated, then each is named; a comma-separated header passes', () => {
    expect(foreignShapeOf('', 'journal')).to.match(/^the journal file is empty; /);
    expect(foreignShapeOf('\uFEFF<?xml version="1.0"?><ledger/>', 'journal')).to.match(/looks like XML or HTML/);
    expect(foreignShapeOf('entry\tdate\tlocation\n', 'journal')).to.match(/is separated by tabs/);
    expect(
      foreignShapeOf('\uFEFFentry,date,location,account,amount,memo\nA1,2025-01-01,1,2,3,"a; b"\n', 'journal'),
    ).to.equal(undefined);
    expect(foreignShapeOf('kind,id,company_id,name\n', 'reference')).to.equal(undefined);
  });
});
