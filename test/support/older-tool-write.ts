/**
 * An import by a tool of a version before month snapshots, written by plain SQL on the caller's session (in its
 * transaction): the journal rows and the pre-aggregates they fold into, nothing of balance_snapshots nor of the mark of
 * the entries the snapshots account for. The entries are untagged and posted, on the random ledger's accounts.
 */
import type { LedgerBatch } from '../../src/domain/ledger.ts';
import { addIsoDays } from '../../src/scalars/dates.ts';
import { seededRandom } from '../../src/store/demo-ledger.ts';
import type { SqlSession } from '../../src/store/sql/session.ts';
import { RANDOM_COMPANY, RANDOM_LOCATIONS } from './random-store-ledger.ts';

type Entry = NonNullable<LedgerBatch['entries']>[number];

/** `count` entries of the random ledger's company over its span: income against the bank, some in new months. */
export function olderToolEntries(seed: number, count: number): Entry[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const cents = 1 + Math.floor(rnd() * 5_000_000);
    return {
      companyId: RANDOM_COMPANY,
      locationId: RANDOM_LOCATIONS[Math.floor(rnd() * RANDOM_LOCATIONS.length)]!,
      date: addIsoDays('2023-01-01', Math.floor(rnd() * 1000)),
      isPosted: true,
      lines: [
        { accountId: rnd() < 0.5 ? 4000 : 6100, cents },
        { accountId: 1000, cents: -cents },
      ],
    };
  });
}

const nextId = async (s: SqlSession, table: string) =>
  Number((await s.query(`SELECT CAST(COALESCE(MAX(id), 0) AS VARCHAR) AS m FROM ${table}`))[0]!.m) + 1;

/** Adds `cents` to one key of a pre-aggregate table, inserting the key when it is new. */
async function fold(s: SqlSession, table: string, period: string, key: (string | number)[], cents: number) {
  const where = `company_id = $2 AND ${period} = CAST($3 AS DATE) AND location_id = $4 AND account_id = $5
    AND tag_set_id = $6`;
  const updated = await s.query(`UPDATE ${table} SET cents = cents + $1 WHERE ${where} RETURNING 1 AS x`, [
    cents,
    ...key,
  ]);
  if (updated.length === 0)
    await s.query(
      `INSERT INTO ${table} (cents, company_id, ${period}, location_id, account_id, tag_set_id)
       VALUES ($1, $2, CAST($3 AS DATE), $4, $5, $6)`,
      [cents, ...key],
    );
}

export async function writeAsOlderTool(s: SqlSession, entries: readonly Entry[]): Promise<void> {
  let entryId = await nextId(s, 'journal_entries');
  let lineId = await nextId(s, 'journal_lines');
  for (const e of entries) {
    const [tagSet] = await s.query("SELECT id FROM tag_sets WHERE company_id = $1 AND tag_key = ''", [e.companyId]);
    await s.query(
      `INSERT INTO journal_entries (id, company_id, location_id, entry_date, memo, is_posted)
       VALUES ($1, $2, $3, CAST($4 AS DATE), NULL, true)`,
      [entryId, e.companyId, e.locationId, e.date],
    );
    for (const l of e.lines) {
      const location = l.locationId ?? e.locationId;
      await s.query(
        `INSERT INTO journal_lines (id, entry_id, account_id, location_id, amount_cents, tag_set_id)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [lineId++, entryId, l.accountId, location, l.cents, Number(tagSet!.id)],
      );
      const key = [e.companyId, location, l.accountId, Number(tagSet!.id)];
      await fold(s, 'balance_daily', 'day', [key[0]!, e.date, ...key.slice(1)], l.cents);
      await fold(s, 'balance_monthly', 'month', [key[0]!, `${e.date.slice(0, 7)}-01`, ...key.slice(1)], l.cents);
    }
    entryId++;
  }
}
