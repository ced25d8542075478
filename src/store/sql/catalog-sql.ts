/**
 * Reads a company catalog in one round trip (shared SQL for both dialects): every reference row of the
 * company as (kind, c1…c6) text columns, decoded per kind. One statement instead of six keeps the report's
 * fixed cost low (each statement costs about a millisecond on either engine). Ordered by kind, which DuckDB answers
 * in one chunk rather than one per part of the union (each chunk is native memory until collected, see connections.ts).
 */
import type { BatchIds } from '../batch/batch-validation.ts';
import type { AccountType, CompanyCatalog } from '../../domain/ledger.ts';
import { int, intOrNull, str, strOrNull, type SqlRow, type SqlSession } from './session.ts';

const T = (expr: string) => `CAST(${expr} AS VARCHAR)`;
const NULL = 'CAST(NULL AS VARCHAR)';

export const CATALOG_SQL = `
SELECT 'company' AS kind, ${T('id')} AS c1, name AS c2, base_currency AS c3, ${T('fiscal_year_start_month')} AS c4,
  time_zone AS c5, ${NULL} AS c6, ${NULL} AS c7
  FROM companies WHERE id = $1
UNION ALL
SELECT 'location', ${T('id')}, name, ${NULL}, ${NULL}, ${NULL}, ${NULL}, ${NULL} FROM locations WHERE company_id = $1
UNION ALL
SELECT 'account', ${T('id')}, name, number, type, ${T('parent_id')}, ${T('is_active')}, ${T('standard_account_id')}
  FROM accounts WHERE company_id = $1
UNION ALL
SELECT 'standard', ${T('id')}, name, number, type, ${T('parent_id')}, ${T('sort_order')}, ${NULL}
  FROM standard_accounts WHERE company_id = $1
UNION ALL
SELECT 'category', id, name, ${NULL}, ${NULL}, ${NULL}, ${NULL}, ${NULL} FROM tracking_categories WHERE company_id = $1
UNION ALL
SELECT 'option', o.id, o.name, o.category_id, ${NULL}, ${NULL}, ${NULL}, ${NULL}
  FROM tracking_options o JOIN tracking_categories c ON c.id = o.category_id WHERE c.company_id = $1
ORDER BY kind`;

const byNumber = (a: { id: number }, b: { id: number }) => a.id - b.id;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function readCatalog(s: SqlSession, companyId: number): Promise<CompanyCatalog | undefined> {
  const rows = await s.query(CATALOG_SQL, [companyId]);
  const of = (kind: string): SqlRow[] => rows.filter((r) => r.kind === kind);
  const [company] = of('company');
  if (!company) return undefined;
  // The columns an account and a standard account share, in the same places.
  const chartRow = (r: SqlRow) => ({
    id: int(r.c1),
    companyId,
    name: str(r.c2),
    number: strOrNull(r.c3),
    type: str(r.c4) as AccountType,
    parentId: intOrNull(r.c5),
  });
  return {
    company: {
      id: int(company.c1),
      name: str(company.c2),
      baseCurrency: str(company.c3),
      fiscalYearStartMonth: int(company.c4),
      timeZone: str(company.c5),
    },
    locations: of('location')
      .map((r) => ({ id: int(r.c1), companyId, name: str(r.c2) }))
      .sort(byNumber),
    accounts: of('account')
      .map((r) => ({ ...chartRow(r), isActive: str(r.c6) === 'true', standardAccountId: intOrNull(r.c7) }))
      .sort(byNumber),
    standardAccounts: of('standard')
      .map((r) => ({ ...chartRow(r), sortOrder: int(r.c6) }))
      .sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id),
    trackingCategories: of('category')
      .map((r) => ({ id: str(r.c1), companyId, name: str(r.c2) }))
      .sort((a, b) => byText(a.name, b.name) || byText(a.id, b.id)),
    trackingOptions: of('option')
      .map((r) => ({ id: str(r.c1), categoryId: str(r.c3), name: str(r.c2) }))
      .sort((a, b) => byText(a.categoryId, b.categoryId) || byText(a.name, b.name) || byText(a.id, b.id)),
  };
}

/**
 * The companies that already own any of these ids (shared SQL for both dialects). A load validates against their
 * catalogs too, so a batch cannot take over another company's record by reusing its id.
 */
export async function ownerCompanyIds(s: SqlSession, ids: BatchIds): Promise<number[]> {
  const parts: string[] = [];
  const params: (number[] | string[])[] = [];
  const add = (list: number[] | string[], sql: (p: string) => string) => {
    if (list.length === 0) return;
    params.push(list);
    parts.push(sql(`$${params.length}`));
  };
  add(ids.locations, (p) => `SELECT company_id FROM locations WHERE id = ANY(${p})`);
  add(ids.accounts, (p) => `SELECT company_id FROM accounts WHERE id = ANY(${p})`);
  add(ids.standardAccounts, (p) => `SELECT company_id FROM standard_accounts WHERE id = ANY(${p})`);
  add(ids.trackingCategories, (p) => `SELECT company_id FROM tracking_categories WHERE id = ANY(${p})`);
  add(
    ids.trackingOptions,
    (p) =>
      `SELECT c.company_id FROM tracking_options o JOIN tracking_categories c ON c.id = o.category_id ` +
      `WHERE o.id = ANY(${p})`,
  );
  if (parts.length === 0) return [];
  const rows = await s.query(
    `SELECT DISTINCT CAST(company_id AS VARCHAR) AS c FROM (${parts.join(' UNION ALL ')}) owners`,
    params,
  );
  return rows.map((r) => int(r.c));
}
