/**
 * The seeded random ledger (scripts/lib/random-ledger.ts) written as the import's CSV files (scripts/import-format.md):
 * a journal of one row per line, in the import's own columns, and a reference file. Streamed (csv-stringify), so a
 * file of any size is written in bounded memory.
 */
import { stringify } from 'csv-stringify';
import { createWriteStream, existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { stringify as stringifySync } from 'csv-stringify/sync';
import { randomLedgerEntries, randomLedgerReference, type RandomLedgerOptions } from '../lib/random-ledger.ts';
import { JOURNAL_COLUMNS, type JournalColumn } from '../../src/store/ledger/writer.ts';

export interface LedgerCsv {
  journal: string;
  reference: string;
  bytes: number;
}

const REFERENCE_HEADER = ['kind', 'id', 'company_id', 'name', 'type', 'number', 'category_id', 'time_zone'];

const decimal = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

function referenceRows(options: RandomLedgerOptions): string[][] {
  const ref = randomLedgerReference(options);
  const c = ref.company;
  return [
    ['company', String(c.id), '', c.name, '', '', '', c.timeZone],
    ...ref.locations.map((l) => ['location', String(l.id), String(l.companyId), l.name, '', '', '', '']),
    ...ref.accounts.map((a) => ['account', String(a.id), String(a.companyId), a.name, a.type, a.number ?? '', '', '']),
    ...ref.trackingCategories.map((t) => ['tracking_category', t.id, String(t.companyId), t.name, '', '', '', '']),
    ...ref.trackingOptions.map((o) => ['tracking_option', o.id, '', o.name, '', '', o.categoryId, '']),
  ];
}

/** Writes (once; kept by name) `<base>.journal.csv` and `<base>.reference.csv`. */
export async function ensureLedgerCsv(base: string, options: RandomLedgerOptions): Promise<LedgerCsv> {
  const journal = `${base}.journal.csv`,
    reference = `${base}.reference.csv`;
  if (!existsSync(journal) || !existsSync(reference)) {
    writeFileSync(reference, stringifySync([REFERENCE_HEADER, ...referenceRows(options)]));
    const partial = `${journal}.part`;
    const out = createWriteStream(partial);
    const csv = stringify();
    csv.pipe(out);
    csv.write(JOURNAL_COLUMNS);
    let n = 0;
    for (const e of randomLedgerEntries(options)) {
      n++;
      for (const l of e.lines) {
        const cells: Record<JournalColumn, string> = {
          entry: `E${n}`,
          date: e.date,
          location: String(l.locationId ?? e.locationId),
          account: String(l.accountId),
          amount: decimal(l.cents),
          options: (l.trackingOptionIds ?? []).join(';'),
          memo: e.memo ?? '',
          posted: e.isPosted === false ? 'false' : 'true',
        };
        if (!csv.write(JOURNAL_COLUMNS.map((column) => cells[column]))) await once(csv, 'drain');
      }
    }
    csv.end();
    await once(out, 'finish');
    renameSync(partial, journal);
  }
  return { journal, reference, bytes: statSync(journal).size };
}
