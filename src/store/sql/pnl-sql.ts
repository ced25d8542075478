/**
 * sumPnlByAccountMonth over the pre-aggregates (shared SQL): whole months from balance_monthly, the clipped
 * first/last months from balance_daily, P&L account types only, location and tag-set filters as parameters.
 */
import { planRange } from './date-spans.ts';
import { PNL_ACCOUNT_TYPES, type AccountMonthTotal, type PnlQuery } from '../../domain/ledger.ts';
import { toSafeCents } from '../ledger/money.ts';
import { isoLastOfMonth } from '../../scalars/dates.ts';
import { parseGuid } from '../../scalars/guids.ts';
import { resolveTagSets } from '../ledger/tag-sets.ts';
import { int, str, type SqlSession } from './session.ts';

const FILTERS = 'company_id = $1 AND ($4 OR location_id = ANY($5)) AND ($6 OR tag_set_id = ANY($7))';
const PNL_TYPES = PNL_ACCOUNT_TYPES.map((t) => `'${t}'`).join(', '); // constants, not user input

export const PNL_SQL = `
SELECT x.account_id, CAST(x.month AS VARCHAR) AS month, CAST(SUM(x.cents) AS VARCHAR) AS cents
FROM (
  SELECT account_id, month, cents FROM balance_monthly
   WHERE ${FILTERS} AND month BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)
  UNION ALL
  SELECT account_id, CAST($10 AS DATE) AS month, cents FROM balance_daily
   WHERE ${FILTERS} AND day BETWEEN CAST($8 AS DATE) AND CAST($9 AS DATE)
  UNION ALL
  SELECT account_id, CAST($13 AS DATE) AS month, cents FROM balance_daily
   WHERE ${FILTERS} AND day BETWEEN CAST($11 AS DATE) AND CAST($12 AS DATE)
) x
JOIN accounts a ON a.id = x.account_id AND a.company_id = $1 AND a.type IN (${PNL_TYPES})
GROUP BY x.account_id, x.month
HAVING SUM(x.cents) <> 0
ORDER BY x.account_id, month`;

/** Tag sets of a company with their options, for filter resolution. */
export async function readTagSets(s: SqlSession, companyId: number): Promise<{ id: number; optionIds: string[] }[]> {
  const rows = await s.query(
    `SELECT t.id, o.option_id FROM tag_sets t LEFT JOIN tag_set_options o ON o.tag_set_id = t.id
      WHERE t.company_id = $1 ORDER BY t.id`,
    [companyId],
  );
  const byId = new Map<number, string[]>();
  for (const r of rows) {
    const id = int(r.id);
    const list = byId.get(id) ?? [];
    if (r.option_id != null) list.push(str(r.option_id));
    byId.set(id, list);
  }
  return [...byId].map(([id, optionIds]) => ({ id, optionIds }));
}

export async function sumPnl(s: SqlSession, q: PnlQuery): Promise<AccountMonthTotal[]> {
  const plan = planRange(q.from, q.to);
  const tagSetIds = q.optionGroups.some((g) => g.length > 0)
    ? resolveTagSets(await readTagSets(s, q.companyId), q.optionGroups)
    : undefined;
  if (tagSetIds && tagSetIds.length === 0) return [];
  const rows = await s.query(PNL_SQL, [
    q.companyId,
    plan.firstMonth,
    plan.lastMonth,
    q.locationIds.length === 0,
    q.locationIds,
    tagSetIds === undefined,
    tagSetIds ?? [],
    plan.head?.from ?? null,
    plan.head?.to ?? null,
    plan.head?.month ?? null,
    plan.tail?.from ?? null,
    plan.tail?.to ?? null,
    plan.tail?.month ?? null,
  ]);
  return rows.map((r) => ({
    accountId: int(r.account_id),
    month: str(r.month).slice(0, 7),
    cents: toSafeCents(str(r.cents)),
  }));
}

/**
 * The same figures by a direct scan of journal_lines (no pre-aggregates): the reference the pre-aggregates are tested
 * against (and the tests hold it to a JavaScript oracle). A line's options are those of its tag set. One EXISTS per
 * option group (the group count shapes the SQL; ids are parameters).
 */
export async function scanPnl(s: SqlSession, q: PnlQuery): Promise<AccountMonthTotal[]> {
  const groups = q.optionGroups.filter((g) => g.length > 0);
  const exists = groups
    .map(
      (_, i) =>
        ` AND EXISTS (SELECT 1 FROM tag_set_options lo WHERE lo.tag_set_id = l.tag_set_id ` +
        `AND lo.option_id = ANY($${6 + i}))`,
    )
    .join('');
  const sql = `
    SELECT l.account_id, CAST(CAST(date_trunc('month', e.entry_date) AS DATE) AS VARCHAR) AS month,
      CAST(SUM(l.amount_cents) AS VARCHAR) AS cents
      FROM journal_lines l
      JOIN journal_entries e ON e.id = l.entry_id
      JOIN accounts a ON a.id = l.account_id AND a.type IN (${PNL_TYPES})
     WHERE e.company_id = $1 AND e.is_posted AND e.entry_date BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)
       AND ($4 OR l.location_id = ANY($5))${exists}
     GROUP BY 1, 2 HAVING SUM(l.amount_cents) <> 0 ORDER BY 1, 2`;
  const rows = await s.query(sql, [
    q.companyId,
    q.from,
    q.to,
    q.locationIds.length === 0,
    q.locationIds,
    ...groups.map((g) => g.map((o) => parseGuid(o) ?? o)),
  ]);
  return rows.map((r) => ({
    accountId: int(r.account_id),
    month: str(r.month).slice(0, 7),
    cents: toSafeCents(str(r.cents)),
  }));
}

/**
 * The first and last day (YYYY-MM-DD) on which some P&L account of the company totals other than zero: the months
 * from balance_monthly, then the days within the first and the last of them from balance_daily (what a tool that
 * exits right after needs, without building the in-memory index).
 */
export async function pnlSpan(s: SqlSession, companyId: number): Promise<{ first: string; last: string } | undefined> {
  const [months] = await s.query(
    `SELECT CAST(MIN(month) AS VARCHAR) AS first, CAST(MAX(month) AS VARCHAR) AS last FROM (
       SELECT b.month FROM balance_monthly b JOIN accounts a ON a.id = b.account_id AND a.company_id = b.company_id
        WHERE b.company_id = $1 AND a.type IN (${PNL_TYPES})
          GROUP BY b.account_id, b.month HAVING SUM(b.cents) <> 0) m`,
    [companyId],
  );
  if (months?.first == null) return undefined;
  const first = String(months.first).slice(0, 7);
  const last = String(months.last).slice(0, 7);
  const [days] = await s.query(
    `SELECT CAST(MIN(day) AS VARCHAR) AS first, CAST(MAX(day) AS VARCHAR) AS last FROM (
       SELECT b.day FROM balance_daily b JOIN accounts a ON a.id = b.account_id AND a.company_id = b.company_id
        WHERE b.company_id = $1 AND a.type IN (${PNL_TYPES})
          AND (b.day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE) OR b.day BETWEEN CAST($4 AS DATE)
            AND CAST($5 AS DATE))
        GROUP BY b.account_id, b.day HAVING SUM(b.cents) <> 0) d`,
    [companyId, `${first}-01`, isoLastOfMonth(first), `${last}-01`, isoLastOfMonth(last)],
  );
  return {
    first: days?.first == null ? `${first}-01` : String(days.first).slice(0, 10),
    last: days?.last == null ? isoLastOfMonth(last) : String(days.last).slice(0, 10),
  };
}
