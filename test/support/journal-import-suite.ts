/**
 * The bulk journal import (issue 23, goal 3): the engine reads the CSV file itself and set-based SQL checks every row
 * and entry. A journal of several chunks, entries interleaved, loads the figures of the same batch loaded by load();
 * each check names the CSV line of the first problem (the earliest entry first), however far into the file, and nothing
 * is written. A suite each store runs: test/unit/store/journal-import.test.ts and
 * test/system/store/journal-import-postgres.test.ts.
 */
import { expect } from 'chai';
import { stringify } from 'csv-stringify/sync';
import { CsvImportError, importLedgerCsv } from '../../src/store/import/csv-import.ts';
import { IMPORT_STEPS, type ImportProgress } from '../../src/store/ledger/writer.ts';
import type { LedgerBatch, PnlQuery } from '../../src/domain/ledger.ts';
import type { LedgerStore } from '../../src/store/ledger/ledger-store.ts';
import { OPTIONS_A, OPTIONS_B, RANDOM_COMPANY, expectedTotals, randomLedger } from './random-store-ledger.ts';

const ENTRIES = 6_000; // about 15,000 rows: two chunks and more
const ledger = randomLedger(11, ENTRIES);
const references: LedgerBatch = { ...ledger, entries: [] };
const all: PnlQuery = {
  companyId: RANDOM_COMPANY,
  from: '2022-01-01',
  to: '2026-12-31',
  locationIds: [],
  optionGroups: [],
};

/**
 * The ledger as a journal CSV: one row per line; rows of entries interleaved pairwise (an entry's rows need not be
 * adjacent).
 */
function journalCsv(batch: LedgerBatch): string[][] {
  const rows: string[][] = [];
  (batch.entries ?? []).forEach((e, i) =>
    e.lines.forEach((l, k) =>
      rows.push([
        `R${i}`,
        e.date,
        String(l.locationId ?? e.locationId),
        String(l.accountId),
        (l.cents / 100).toFixed(2),
        (l.trackingOptionIds ?? []).join(';'),
        k === 0 ? `memo ${i}` : '',
        e.isPosted === false ? 'false' : 'true',
      ]),
    ),
  );
  // Swap neighbours of different entries (an entry's last row and the next one's first): entries interleave, and
  // each entry's first row stays its first.
  for (let i = 1; i + 1 < rows.length; i += 2) {
    if (rows[i]![0] !== rows[i + 1]![0]) [rows[i], rows[i + 1]] = [rows[i + 1]!, rows[i]!];
  }
  return rows;
}

const HEADER = ['entry', 'date', 'location', 'account', 'amount', 'options', 'memo', 'posted'];
const csvOf = (rows: string[][]) => stringify([HEADER, ...rows]);

async function refusal(store: LedgerStore, rows: string[][], text = csvOf(rows)): Promise<CsvImportError> {
  const err = await importLedgerCsv(store, text, { companyId: RANDOM_COMPANY }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the import should have been refused').to.be.instanceOf(CsvImportError);
  return err as CsvImportError;
}

export function journalImport(name: string, open: () => Promise<LedgerStore>) {
  describe(`bulk journal import: ${name}`, function () {
    // A hang guard, as for the other store suites: its checks read files of 15,000 rows on a shared machine.
    this.timeout(60_000);
    let store: LedgerStore;
    const rows = journalCsv(ledger);
    const lineOf = (index: number) => index + 2; // header is line 1
    /** The rows with one changed (a copy): the `back`-th row from the end that is not its entry's first (no memo). */
    const edited = (back: number, change: (row: string[]) => string[]) => {
      const copy = rows.map((r) => [...r]);
      const later = copy.map((r, i) => (r[6] === '' ? i : -1)).filter((i) => i >= 0);
      const i = later[later.length + back]!;
      copy[i] = change(copy[i]!);
      return { rows: copy, line: lineOf(i), ref: copy[i]![0]! };
    };

    beforeEach(async () => {
      store = await open();
      await store.migrate();
      await store.load(references);
    });
    afterEach(async () => store.close());

    it(
      'loads a journal of several chunks, entries interleaved, with the figures of the same batch; progress is ' +
        'told each step in order',
      async () => {
        const told: ImportProgress[] = [];
        expect(
          await importLedgerCsv(store, csvOf(rows), { companyId: RANDOM_COMPANY, progress: (at) => told.push(at) }),
        ).to.equal(ENTRIES);
        expect([...new Set(told.map((t) => t.name))]).to.deep.equal([...IMPORT_STEPS]);
        expect(
          told.map((t) => t.step + t.fraction),
          'never goes back',
        ).to.deep.equal(told.map((t) => t.step + t.fraction).sort((x, y) => x - y));
        expect(told.every((t) => t.fraction >= 0 && t.fraction <= 1 && IMPORT_STEPS[t.step] === t.name)).to.equal(true);
        expect(await store.sumPnlByAccountMonth(all)).to.deep.equal(expectedTotals(ledger, all));
        const filtered = { ...all, optionGroups: [[OPTIONS_A[1]!]] };
        expect(await store.sumPnlByAccountMonth(filtered)).to.deep.equal(expectedTotals(ledger, filtered));
      },
    );

    it('names the line of each set-based refusal near the end of a long file, and writes nothing', async () => {
      const firstRowOf = (ref: string, r: string[][]) => r.findIndex((x) => x[0] === ref);
      const cases: { rows: string[][]; line: number; pattern: RegExp }[] = [];
      const account = edited(-3, (r) => [r[0]!, r[1]!, r[2]!, '9999', ...r.slice(4)]);
      cases.push({
        ...account,
        pattern: new RegExp(
          `\\(entry ${account.ref}, [0-9-]+, its \\d(st|nd|rd|th) line\\): unknown account 9999 for ` +
            `company ${RANDOM_COMPANY}`,
        ),
      });
      const unbalanced = edited(-5, (r) => [...r.slice(0, 4), (Number(r[4]) + 0.01).toFixed(2), ...r.slice(5)]);
      cases.push({
        rows: unbalanced.rows,
        line: lineOf(firstRowOf(unbalanced.ref, unbalanced.rows)),
        pattern: /lines do not balance \(they sum to (-)?1 cents/,
      });
      const option = edited(-4, (r) => [...r.slice(0, 5), 'ffffffffffffffffffffffffffffffff', ...r.slice(6)]);
      cases.push({ ...option, pattern: /unknown tracking option ffffffffffffffffffffffffffffffff for company/ });
      // The cell's first unknown option is named, canonical, after a known one.
      const second = edited(-7, (r) => [
        ...r.slice(0, 5),
        `${OPTIONS_A[0]}; {FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFE}`,
        ...r.slice(6),
      ]);
      cases.push({ ...second, pattern: /unknown tracking option fffffffffffffffffffffffffffffffe for company/ });
      const twice = edited(-6, (r) => [...r.slice(0, 5), `${OPTIONS_B[0]};${OPTIONS_B[1]}`, ...r.slice(6)]);
      cases.push({ ...twice, pattern: /more than one option of tracking category 0+b0/ });
      for (const c of cases) {
        const err = await refusal(store, c.rows);
        expect(err.message).to.match(new RegExp(`^line ${c.line}(: | \\(entry )`));
        expect(err.message).to.match(c.pattern);
      }
      expect(await store.sumPnlByAccountMonth(all)).to.deep.equal([]);
    });

    it("reports the earliest entry's problem first, whatever check finds it", async () => {
      const late = edited(-2, (r) => [r[0]!, r[1]!, r[2]!, '9999', ...r.slice(4)]);
      const first = late.rows.findIndex((r) => r[6] !== '' && r[0] !== late.ref);
      late.rows[first]![4] = (Number(late.rows[first]![4]) + 1).toFixed(2); // an early entry no longer balances
      expect((await refusal(store, late.rows)).message).to.match(
        new RegExp(`^line ${lineOf(first)} \\(entry ${late.rows[first]![0]}, .*lines do not balance`),
      );
      const dated = edited(-1, (r) => [r[0]!, '2024-02-29', ...r.slice(2)]);
      const firstDate = dated.rows.find((r) => r[0] === dated.ref)![1];
      expect(firstDate).to.not.equal('2024-02-29');
      expect((await refusal(store, dated.rows)).message).to.equal(
        `line ${dated.line}: entry ${dated.ref} has date 2024-02-29 but its first line has ${firstDate}`,
      );
      const located = edited(-1, (r) => [r[0]!, r[1]!, '99', ...r.slice(3)]);
      expect((await refusal(store, located.rows)).message).to.match(
        new RegExp(
          `^line ${located.line} \\(entry ${located.ref}, [0-9-]+, its \\d(st|nd|rd|th) line\\): unknown ` +
            `location 99 for company`,
        ),
      );
      expect(await store.sumPnlByAccountMonth(all)).to.deep.equal([]);
    });

    it(
      "checks each row's formats in the engine: the first bad row is named with its reason, however far into the " +
        'file',
      async () => {
        const at = rows.length - 7;
        const bad = (cells: Partial<Record<number, string>>) =>
          rows.map((r, i) => (i === at ? r.map((c, k) => cells[k] ?? c) : r));
        const cases: [Partial<Record<number, string>>, string][] = [
          [{ 0: ' ' }, 'entry is empty'],
          [{ 1: '2024-02-30' }, 'date "2024-02-30" is not a valid YYYY-MM-DD date'],
          [{ 1: '0099-01-01' }, 'date "0099-01-01" is not a valid YYYY-MM-DD date'],
          [{ 2: '0' }, 'location "0" must be a positive integer'],
          [{ 3: '12a' }, 'account "12a" must be a positive integer'],
          [{ 3: '9007199254740992' }, 'account "9007199254740992" must be a positive integer'],
          [{ 4: '1.234' }, 'amount "1.234" is not a decimal with at most 2 decimals'],
          [{ 4: '90071992547409.92' }, 'amount "90071992547409.92" is not a decimal with at most 2 decimals'],
          [{ 5: `${OPTIONS_A[0]}; not-a-guid ;${OPTIONS_B[0]}` }, 'option "not-a-guid" is not a GUID'],
          [{ 7: 'Maybe' }, 'posted "maybe" must be true or false'],
          // Forms the engines' own casts would read (PostgreSQL's are read first), refused as the format says.
          [{ 1: '2024-1-5' }, 'date "2024-1-5" is not a valid YYYY-MM-DD date'],
          [{ 1: '20240105' }, 'date "20240105" is not a valid YYYY-MM-DD date'],
          [{ 1: 'infinity' }, 'date "infinity" is not a valid YYYY-MM-DD date'],
          [{ 2: '+2' }, 'location "+2" must be a positive integer'],
          [{ 3: '-3' }, 'account "-3" must be a positive integer'],
          [{ 4: '1e3' }, 'amount "1e3" is not a decimal with at most 2 decimals'],
          [{ 4: 'NaN' }, 'amount "NaN" is not a decimal with at most 2 decimals'],
          [{ 4: 'Infinity' }, 'amount "Infinity" is not a decimal with at most 2 decimals'],
          [{ 4: '.5' }, 'amount ".5" is not a decimal with at most 2 decimals'],
        ];
        for (const [cells, reason] of cases) {
          expect((await refusal(store, bad(cells))).message, reason).to.equal(`line ${lineOf(at)}: ${reason}`);
        }
        expect(await store.sumPnlByAccountMonth(all)).to.deep.equal([]);
      },
    );

    it('reads numbers with leading zeros and signed amounts as their values', async () => {
      const spelled = rows.map((r) => [
        r[0]!,
        r[1]!,
        `00${r[2]}`,
        `0${r[3]}`,
        r[4]!.startsWith('-') ? `-0${r[4]!.slice(1)}` : `+0${r[4]}`,
        ...r.slice(5),
      ]);
      expect(await importLedgerCsv(store, csvOf(spelled), { companyId: RANDOM_COMPANY })).to.equal(ENTRIES);
      expect(await store.sumPnlByAccountMonth(all)).to.deep.equal(expectedTotals(ledger, all));
    });

    it(
      'reads GUIDs in every accepted form, spaces around cells, quoted cells spanning lines, CRLF and a BOM; ' +
        'lines count the breaks in cells',
      async () => {
        const braced = (id: string) =>
          `{${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-` +
          `${id.slice(20).toUpperCase()}}`;
        const spaced = (cell: string) => ` ${cell} `; // cells are trimmed
        const spelled = rows.map((r, i) =>
          i % 2 === 0
            ? [
                ...r.slice(0, 5).map(spaced),
                r[5]!
                  .split(';')
                  .map((o) => (o ? braced(o) : o))
                  .join(' ; '),
                r[6] ? `${r[6]}\nsecond line, "quoted"` : '',
                spaced(r[7]!),
              ]
            : r,
        );
        const text = `\uFEFF${csvOf(spelled).replace(/\n/g, '\r\n')}\r\n\r\n`;
        expect(await importLedgerCsv(store, text, { companyId: RANDOM_COMPANY })).to.equal(ENTRIES);
        const filtered = { ...all, optionGroups: [[OPTIONS_A[1]!], [OPTIONS_B[0]!]] };
        expect(await store.sumPnlByAccountMonth(filtered)).to.deep.equal(expectedTotals(ledger, filtered));
        // A refusal near the end names the physical line: every quoted memo before it added one.
        const late = spelled.map((r) => [...r]);
        const k = (late.length - 3) % 2 === 1 ? late.length - 3 : late.length - 4; // a row left as it was (no quotes)
        late[k]![3] = '9999';
        const csv = csvOf(late);
        const line = csv.slice(0, csv.indexOf(late[k]!.join(','))).split('\n').length;
        expect(line).to.be.greaterThan(lineOf(k));
        expect(
          ((await importLedgerCsv(store, csv, { companyId: RANDOM_COMPANY }).catch((e: Error) => e)) as Error).message,
        ).to.match(new RegExp(`^line ${line} \\(entry .*\\): unknown account 9999`));
      },
    );

    it(
      'refuses a blank line between rows and a row of another width at its line (blank lines at the end are ' + 'fine)',
      async () => {
        const text = csvOf(rows.slice(0, 10));
        const lines = text.split('\n');
        const blank = [...lines.slice(0, 6), '', ...lines.slice(6)].join('\n');
        expect((await refusal(store, [], blank)).message).to.match(
          /^line 7: malformed CSV: an empty line between rows/,
        );
        expect((await refusal(store, [], `${text}X1,2024-01-05,71,"1000,-1\n`)).message).to.match(
          /^line 12: malformed CSV: /,
        );
        // Extra cells, empty ones too (DuckDB's reader alone would take those as if they were not there).
        for (const extra of [',', ',,', ',""', ',x']) {
          const wide = [...lines.slice(0, 5), `${lines[5]}${extra}`, ...lines.slice(6)].join('\n');
          expect((await refusal(store, [], wide)).message, extra).to.equal(
            `line 6: malformed CSV: more cells than the header's ${HEADER.length}`,
          );
        }
        const short = [...lines.slice(0, 8), 'R9,2024-01-01,71,1000', ...lines.slice(8)].join('\n');
        expect((await refusal(store, [], short)).message).to.equal(
          `line 9: malformed CSV: fewer cells than the header's ${HEADER.length}`,
        );
        // A row of another width is named before an earlier row's bad value (the engine's reading refuses it first),
        // at its line when a quoted cell before it spans lines.
        const badDate = lines[2]!.replace(/,\d{4}-\d\d-\d\d,/, ',2024-02-30,');
        const spanning = lines[3]!.replace(/,[^,]*,(true|false)$/, ',"two\nlines",$1');
        const both = [...lines.slice(0, 2), badDate, spanning, ...lines.slice(4, 7), `${lines[7]},`].join('\n');
        expect((await refusal(store, [], both)).message).to.equal(
          `line 9: malformed CSV: more cells than the header's ${HEADER.length}`,
        );
        expect(await store.sumPnlByAccountMonth(all)).to.deep.equal([]);
      },
    );

    it('refuses a quote RFC 4180 does not place at its line, and loads one doubled in a quoted cell', async () => {
      const entries = ['R0', 'R1', 'R2'];
      const lines = csvOf(rows.filter((r) => entries.includes(r[0]!))).split('\n');
      const withMemo = (memo: string) =>
        [lines[0], lines[1]!.replace(/,memo 0,/, `,${memo},`), ...lines.slice(2)].join('\n');
      const misplaced: [string, string][] = [
        ['a 6" pipe', 'a quote inside an unquoted cell'], // DuckDB: text; COPY: an unterminated quoted cell
        ['a "big" pipe', 'a quote inside an unquoted cell'], // DuckDB: as written; COPY: a big pipe
        ['"big" pipe', 'text after the closing quote of a quoted cell'], // COPY: big pipe
      ];
      for (const [memo, reason] of misplaced) {
        expect((await refusal(store, [], withMemo(memo))).message, memo).to.equal(
          `line 2: malformed CSV: ${reason} (a cell with a quote is quoted whole, its quotes doubled: "a 6"" pipe")`,
        );
      }
      expect(await store.sumPnlByAccountMonth(all)).to.deep.equal([]);
      expect(await importLedgerCsv(store, withMemo('"a 6"" pipe, ""big"""'), { companyId: RANDOM_COMPANY })).to.equal(
        entries.length,
      );
    });

    it('refuses a journal for a company that does not exist at its first line', async () => {
      const err = await importLedgerCsv(store, csvOf(rows.slice(0, 3)), { companyId: 99 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as Error).message).to.match(/^line 2 \(entry R0, .*\): unknown company 99/);
    });
  });
}
