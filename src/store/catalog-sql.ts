/** Reads a company catalog (shared SQL for both dialects). */
import type { AccountType, CompanyCatalog } from './ledger-store.ts';
import { int, intOrNull, str, strOrNull, type SqlSession } from './sql-session.ts';

export async function readCatalog(s: SqlSession, companyId: number): Promise<CompanyCatalog | undefined> {
  const [company] = await s.query(
    'SELECT id, name, base_currency, fiscal_year_start_month, time_zone FROM companies WHERE id = $1', [companyId]);
  if (!company) return undefined;
  // Sequential on purpose: one connection (DuckDB) or one client (a pg transaction) runs one statement at a time.
  const locations = await s.query('SELECT id, company_id, name FROM locations WHERE company_id = $1 ORDER BY id', [companyId]);
  const accounts = await s.query(`SELECT id, company_id, number, name, type, parent_id, is_active, standard_account_id
             FROM accounts WHERE company_id = $1 ORDER BY id`, [companyId]);
  const standardAccounts = await s.query(`SELECT id, company_id, number, name, type, parent_id, sort_order
             FROM standard_accounts WHERE company_id = $1 ORDER BY sort_order, id`, [companyId]);
  const categories = await s.query('SELECT id, company_id, name FROM tracking_categories WHERE company_id = $1 ORDER BY name, id', [companyId]);
  const options = await s.query(`SELECT o.id, o.category_id, o.name FROM tracking_options o
             JOIN tracking_categories c ON c.id = o.category_id WHERE c.company_id = $1 ORDER BY o.category_id, o.name, o.id`, [companyId]);
  return {
    company: {
      id: int(company.id), name: str(company.name), baseCurrency: str(company.base_currency),
      fiscalYearStartMonth: int(company.fiscal_year_start_month), timeZone: str(company.time_zone),
    },
    locations: locations.map((r) => ({ id: int(r.id), companyId: int(r.company_id), name: str(r.name) })),
    accounts: accounts.map((r) => ({
      id: int(r.id), companyId: int(r.company_id), number: strOrNull(r.number), name: str(r.name), type: str(r.type) as AccountType,
      parentId: intOrNull(r.parent_id), isActive: Boolean(r.is_active), standardAccountId: intOrNull(r.standard_account_id),
    })),
    standardAccounts: standardAccounts.map((r) => ({
      id: int(r.id), companyId: int(r.company_id), number: strOrNull(r.number), name: str(r.name), type: str(r.type) as AccountType,
      parentId: intOrNull(r.parent_id), sortOrder: int(r.sort_order),
    })),
    trackingCategories: categories.map((r) => ({ id: str(r.id), companyId: int(r.company_id), name: str(r.name) })),
    trackingOptions: options.map((r) => ({ id: str(r.id), categoryId: str(r.category_id), name: str(r.name) })),
  };
}
