/**
 * The checks of a batch's reference rows, each kind in its own check and in this order (a row may refer only to rows
 * stored or checked before it): companies, locations, standard accounts, accounts, tracking categories and options.
 */
import { BALANCE_SHEET_ACCOUNT_TYPES, PNL_ACCOUNT_TYPES, type LedgerBatch } from '../../domain/ledger.ts';
import { parseGuid } from '../../scalars/guids.ts';
import type { BatchLocation } from '../ledger/errors.ts';
import { type BatchCheck, isId, isText } from './batch-check.ts';

const ACCOUNT_TYPES = new Set<string>([...PNL_ACCOUNT_TYPES, ...BALANCE_SHEET_ACCOUNT_TYPES]);

/** True for an IANA time zone name this runtime knows (what every report of the company will compute in). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export function checkCompanies(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('company');
  (batch.companies ?? []).forEach((c, index) => {
    const at: BatchLocation = { kind: 'companies', index };
    if (!isId(c.id)) return check.fail(at, `company id ${String(c.id)} must be a positive integer`);
    once(c.id, at);
    if (!isText(c.name)) check.fail(at, `company ${c.id}: name is required`);
    if (!/^[A-Z]{3}$/.test(c.baseCurrency))
      check.fail(at, `company ${c.id}: base currency "${c.baseCurrency}" is not an ISO 4217 code`);
    if (!Number.isInteger(c.fiscalYearStartMonth) || c.fiscalYearStartMonth < 1 || c.fiscalYearStartMonth > 12) {
      check.fail(at, `company ${c.id}: fiscal year start month must be 1-12`);
    }
    if (!isText(c.timeZone)) check.fail(at, `company ${c.id}: time zone is required`);
    else if (!isKnownTimeZone(c.timeZone))
      check.fail(at, `company ${c.id}: time zone "${c.timeZone}" is not an IANA time zone (e.g. America/New_York)`);
    check.known.companies.add(c.id);
    check.out.companies.push({ ...c });
  });
}

export function checkLocations(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('location');
  (batch.locations ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'locations', index };
    if (!isId(r.id)) return check.fail(at, `location id ${String(r.id)} must be a positive integer`);
    once(r.id, at);
    check.company(r.companyId, at, `location ${r.id}`);
    check.owner(check.owners.location, r.id, r.companyId, at, 'location');
    if (!isText(r.name)) check.fail(at, `location ${r.id}: name is required`);
    check.known.locationCompany.set(r.id, r.companyId);
    check.out.locations.push({ ...r });
  });
}

/** Standard accounts: every id of the batch is known first, so a parent may come after its child. */
export function checkStandardAccounts(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('standard account');
  const rows = batch.standardAccounts ?? [];
  const { standardCompany } = check.known;
  rows.forEach((r, index) => {
    if (isId(r.id)) {
      once(r.id, { kind: 'standardAccounts', index });
      standardCompany.set(r.id, r.companyId);
    }
  });
  rows.forEach((r, index) => {
    const at: BatchLocation = { kind: 'standardAccounts', index };
    if (!isId(r.id)) return check.fail(at, `standard account id ${String(r.id)} must be a positive integer`);
    check.company(r.companyId, at, `standard account ${r.id}`);
    check.owner(check.owners.standard, r.id, r.companyId, at, 'standard account');
    if (!isText(r.name)) check.fail(at, `standard account ${r.id}: name is required`);
    if (!ACCOUNT_TYPES.has(r.type)) check.fail(at, `standard account ${r.id}: unknown type "${r.type}"`);
    if (r.parentId != null && standardCompany.get(r.parentId) !== r.companyId) {
      check.fail(at, `standard account ${r.id}: unknown parent ${r.parentId}`);
    }
    if (!Number.isSafeInteger(r.sortOrder)) check.fail(at, `standard account ${r.id}: sort order must be an integer`);
    check.out.standardAccounts.push({ ...r, number: r.number ?? null, parentId: r.parentId ?? null });
  });
}

/** Accounts: every id of the batch is known first, so a parent may come after its child. */
export function checkAccounts(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('account');
  const rows = batch.accounts ?? [];
  const { accountCompany, standardCompany } = check.known;
  rows.forEach((r, index) => {
    if (isId(r.id)) {
      once(r.id, { kind: 'accounts', index });
      accountCompany.set(r.id, r.companyId);
    }
  });
  rows.forEach((r, index) => {
    const at: BatchLocation = { kind: 'accounts', index };
    if (!isId(r.id)) return check.fail(at, `account id ${String(r.id)} must be a positive integer`);
    check.company(r.companyId, at, `account ${r.id}`);
    check.owner(check.owners.account, r.id, r.companyId, at, 'account');
    if (!isText(r.name)) check.fail(at, `account ${r.id}: name is required`);
    if (!ACCOUNT_TYPES.has(r.type)) check.fail(at, `account ${r.id}: unknown type "${r.type}"`);
    if (r.parentId != null && accountCompany.get(r.parentId) !== r.companyId)
      check.fail(at, `account ${r.id}: unknown parent ${r.parentId}`);
    if (r.standardAccountId != null && standardCompany.get(r.standardAccountId) !== r.companyId) {
      check.fail(at, `account ${r.id}: unknown standard account ${r.standardAccountId}`);
    }
    check.out.accounts.push({
      ...r,
      number: r.number ?? null,
      parentId: r.parentId ?? null,
      standardAccountId: r.standardAccountId ?? null,
      isActive: r.isActive ?? true,
    });
  });
}

export function checkTrackingCategories(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('tracking category');
  (batch.trackingCategories ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'trackingCategories', index };
    const id = parseGuid(String(r.id));
    if (!id) return check.fail(at, `tracking category id "${r.id}" is not a GUID`);
    once(id, at);
    check.company(r.companyId, at, `tracking category ${id}`);
    check.owner(check.owners.category, id, r.companyId, at, 'tracking category');
    if (!isText(r.name)) check.fail(at, `tracking category ${id}: name is required`);
    check.known.categoryCompany.set(id, r.companyId);
    check.out.trackingCategories.push({ ...r, id });
  });
}

export function checkTrackingOptions(batch: LedgerBatch, check: BatchCheck): void {
  const once = check.once('tracking option');
  const { categoryCompany, optionCategory } = check.known;
  (batch.trackingOptions ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'trackingOptions', index };
    const id = parseGuid(String(r.id));
    const categoryId = parseGuid(String(r.categoryId));
    if (!id) return check.fail(at, `tracking option id "${r.id}" is not a GUID`);
    once(id, at);
    if (!categoryId || !categoryCompany.has(categoryId))
      return check.fail(at, `tracking option ${id}: unknown category ${r.categoryId}`);
    check.owner(check.owners.option, id, categoryCompany.get(categoryId), at, 'tracking option');
    if (!isText(r.name)) check.fail(at, `tracking option ${id}: name is required`);
    optionCategory.set(id, categoryId);
    check.out.trackingOptions.push({ ...r, id, categoryId });
  });
}
