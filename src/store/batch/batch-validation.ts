/**
 * Validation of a LedgerBatch against itself and the rows already stored, shared by every adapter.
 * Produces a normalized batch (canonical GUIDs, sorted options, tag-set keys) or throws LedgerValidationError.
 */
import { LedgerValidationError, ordinal, type BatchIssue, type BatchLocation } from '../ledger/errors.ts';
import { isIsoDate } from '../../scalars/dates.ts';
import { parseGuid } from '../../scalars/guids.ts';
import { tagSetKey } from '../ledger/tag-sets.ts';
import {
  BALANCE_SHEET_ACCOUNT_TYPES,
  PNL_ACCOUNT_TYPES,
  type Account,
  type Company,
  type CompanyCatalog,
  type LedgerBatch,
  type Location,
  type StandardAccount,
  type TrackingCategory,
  type TrackingOption,
} from '../../domain/ledger.ts';

const ACCOUNT_TYPES = new Set<string>([...PNL_ACCOUNT_TYPES, ...BALANCE_SHEET_ACCOUNT_TYPES]);
const MAX_ISSUES = 50;

export interface NormalizedLine {
  accountId: number;
  locationId: number;
  cents: number;
  /** Sorted canonical option ids. */
  optionIds: string[];
  tagKey: string;
}

export interface NormalizedEntry {
  companyId: number;
  locationId: number;
  date: string;
  memo: string | null;
  isPosted: boolean;
  /** The entry id the import named (kept per company; see load-sql.ts), or null. */
  ref: string | null;
  lines: NormalizedLine[];
}

export interface NormalizedBatch {
  companies: Company[];
  locations: Location[];
  standardAccounts: StandardAccount[];
  accounts: Account[];
  trackingCategories: TrackingCategory[];
  trackingOptions: TrackingOption[];
  entries: NormalizedEntry[];
}

/** Company ids a batch refers to: the adapter loads their stored catalogs before validating. */
export function referencedCompanyIds(batch: LedgerBatch): number[] {
  const ids = new Set<number>();
  for (const list of [
    batch.companies?.map((c) => c.id),
    batch.locations?.map((r) => r.companyId),
    batch.accounts?.map((r) => r.companyId),
    batch.standardAccounts?.map((r) => r.companyId),
    batch.trackingCategories?.map((r) => r.companyId),
  ]) {
    for (const id of list ?? []) if (Number.isSafeInteger(id)) ids.add(id);
  }
  for (const e of batch.entries ?? []) if (Number.isSafeInteger(e.companyId)) ids.add(e.companyId);
  return [...ids];
}

/** Ids the batch writes, by kind: the adapter finds which companies already own them (see ownerCompanyIds). */
export interface BatchIds {
  locations: number[];
  accounts: number[];
  standardAccounts: number[];
  trackingCategories: string[];
  trackingOptions: string[];
}

export function batchIds(batch: LedgerBatch): BatchIds {
  const guids = (ids: unknown[] | undefined) =>
    (ids ?? []).map((id) => parseGuid(String(id))).filter((id): id is string => !!id);
  const ints = (ids: unknown[] | undefined) =>
    (ids ?? []).filter((id): id is number => typeof id === 'number' && Number.isSafeInteger(id));
  return {
    locations: ints(batch.locations?.map((r) => r.id)),
    accounts: ints(batch.accounts?.map((r) => r.id)),
    standardAccounts: ints(batch.standardAccounts?.map((r) => r.id)),
    trackingCategories: guids(batch.trackingCategories?.map((r) => r.id)),
    trackingOptions: guids(batch.trackingOptions?.map((r) => r.id)),
  };
}

/** True for an IANA time zone name this runtime knows (what every report of the company will compute in). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** Validates `batch` given the catalogs already stored for the companies it references. */
export function validateBatch(batch: LedgerBatch, stored: readonly CompanyCatalog[]): NormalizedBatch {
  const issues: BatchIssue[] = [];
  const fail = (at: BatchLocation, message: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ at, message });
  };

  // Known references: stored rows first, batch rows override (they are upserts by id).
  const companies = new Set<number>();
  const locationCompany = new Map<number, number>();
  const accountCompany = new Map<number, number>();
  const standardCompany = new Map<number, number>();
  const categoryCompany = new Map<string, number>();
  const optionCategory = new Map<string, string>();
  // Who owns each id before this batch: a batch may create or update records of the companies it names, never
  // take over another company's record by reusing its id (that silently moved accounts between companies).
  const owners = {
    location: new Map<number, number>(),
    account: new Map<number, number>(),
    standard: new Map<number, number>(),
    category: new Map<string, number>(),
    option: new Map<string, number>(),
  };
  for (const c of stored) {
    for (const r of c.locations) owners.location.set(r.id, r.companyId);
    for (const r of c.accounts) owners.account.set(r.id, r.companyId);
    for (const r of c.standardAccounts) owners.standard.set(r.id, r.companyId);
    for (const r of c.trackingCategories) owners.category.set(r.id, r.companyId);
    for (const r of c.trackingOptions) owners.option.set(r.id, c.company.id);
  }
  const checkOwner = <K>(
    owner: Map<K, number>,
    id: K,
    companyId: number | undefined,
    at: BatchLocation,
    what: string,
  ) => {
    const current = owner.get(id);
    if (current !== undefined && companyId !== undefined && current !== companyId) {
      fail(
        at,
        `${what} ${String(id)} belongs to company ${current}; this import is for company ${companyId}: use another id`,
      );
    }
  };
  for (const c of stored) {
    companies.add(c.company.id);
    for (const r of c.locations) locationCompany.set(r.id, r.companyId);
    for (const r of c.accounts) accountCompany.set(r.id, r.companyId);
    for (const r of c.standardAccounts) standardCompany.set(r.id, r.companyId);
    for (const r of c.trackingCategories) categoryCompany.set(r.id, r.companyId);
    for (const r of c.trackingOptions) optionCategory.set(r.id, r.categoryId);
  }

  const seen = (kind: string) => {
    const ids = new Set<number | string>();
    return (id: number | string, at: BatchLocation) => {
      if (ids.has(id)) fail(at, `${kind} ${id} appears twice in the batch`);
      ids.add(id);
    };
  };

  const out: NormalizedBatch = {
    companies: [],
    locations: [],
    standardAccounts: [],
    accounts: [],
    trackingCategories: [],
    trackingOptions: [],
    entries: [],
  };

  const dupCompany = seen('company');
  (batch.companies ?? []).forEach((c, index) => {
    const at: BatchLocation = { kind: 'companies', index };
    if (!isId(c.id)) return fail(at, `company id ${String(c.id)} must be a positive integer`);
    dupCompany(c.id, at);
    if (!isText(c.name)) fail(at, `company ${c.id}: name is required`);
    if (!/^[A-Z]{3}$/.test(c.baseCurrency))
      fail(at, `company ${c.id}: base currency "${c.baseCurrency}" is not an ISO 4217 code`);
    if (!Number.isInteger(c.fiscalYearStartMonth) || c.fiscalYearStartMonth < 1 || c.fiscalYearStartMonth > 12) {
      fail(at, `company ${c.id}: fiscal year start month must be 1-12`);
    }
    if (!isText(c.timeZone)) fail(at, `company ${c.id}: time zone is required`);
    else if (!isKnownTimeZone(c.timeZone))
      fail(at, `company ${c.id}: time zone "${c.timeZone}" is not an IANA time zone (e.g. America/New_York)`);
    companies.add(c.id);
    out.companies.push({ ...c });
  });

  const checkCompany = (companyId: number, at: BatchLocation, what: string) => {
    if (!companies.has(companyId)) fail(at, `${what}: unknown company ${companyId}`);
  };

  const dupLocation = seen('location');
  (batch.locations ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'locations', index };
    if (!isId(r.id)) return fail(at, `location id ${String(r.id)} must be a positive integer`);
    dupLocation(r.id, at);
    checkCompany(r.companyId, at, `location ${r.id}`);
    checkOwner(owners.location, r.id, r.companyId, at, 'location');
    if (!isText(r.name)) fail(at, `location ${r.id}: name is required`);
    locationCompany.set(r.id, r.companyId);
    out.locations.push({ ...r });
  });

  const dupStd = seen('standard account');
  const stdRows = batch.standardAccounts ?? [];
  stdRows.forEach((r, index) => {
    if (isId(r.id)) {
      dupStd(r.id, { kind: 'standardAccounts', index });
      standardCompany.set(r.id, r.companyId);
    }
  });
  stdRows.forEach((r, index) => {
    const at: BatchLocation = { kind: 'standardAccounts', index };
    if (!isId(r.id)) return fail(at, `standard account id ${String(r.id)} must be a positive integer`);
    checkCompany(r.companyId, at, `standard account ${r.id}`);
    checkOwner(owners.standard, r.id, r.companyId, at, 'standard account');
    if (!isText(r.name)) fail(at, `standard account ${r.id}: name is required`);
    if (!ACCOUNT_TYPES.has(r.type)) fail(at, `standard account ${r.id}: unknown type "${r.type}"`);
    if (r.parentId != null && standardCompany.get(r.parentId) !== r.companyId) {
      fail(at, `standard account ${r.id}: unknown parent ${r.parentId}`);
    }
    if (!Number.isSafeInteger(r.sortOrder)) fail(at, `standard account ${r.id}: sort order must be an integer`);
    out.standardAccounts.push({ ...r, number: r.number ?? null, parentId: r.parentId ?? null });
  });

  const dupAccount = seen('account');
  const accountRows = batch.accounts ?? [];
  accountRows.forEach((r, index) => {
    if (isId(r.id)) {
      dupAccount(r.id, { kind: 'accounts', index });
      accountCompany.set(r.id, r.companyId);
    }
  });
  accountRows.forEach((r, index) => {
    const at: BatchLocation = { kind: 'accounts', index };
    if (!isId(r.id)) return fail(at, `account id ${String(r.id)} must be a positive integer`);
    checkCompany(r.companyId, at, `account ${r.id}`);
    checkOwner(owners.account, r.id, r.companyId, at, 'account');
    if (!isText(r.name)) fail(at, `account ${r.id}: name is required`);
    if (!ACCOUNT_TYPES.has(r.type)) fail(at, `account ${r.id}: unknown type "${r.type}"`);
    if (r.parentId != null && accountCompany.get(r.parentId) !== r.companyId)
      fail(at, `account ${r.id}: unknown parent ${r.parentId}`);
    if (r.standardAccountId != null && standardCompany.get(r.standardAccountId) !== r.companyId) {
      fail(at, `account ${r.id}: unknown standard account ${r.standardAccountId}`);
    }
    out.accounts.push({
      ...r,
      number: r.number ?? null,
      parentId: r.parentId ?? null,
      standardAccountId: r.standardAccountId ?? null,
      isActive: r.isActive ?? true,
    });
  });

  const dupCategory = seen('tracking category');
  (batch.trackingCategories ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'trackingCategories', index };
    const id = parseGuid(String(r.id));
    if (!id) return fail(at, `tracking category id "${r.id}" is not a GUID`);
    dupCategory(id, at);
    checkCompany(r.companyId, at, `tracking category ${id}`);
    checkOwner(owners.category, id, r.companyId, at, 'tracking category');
    if (!isText(r.name)) fail(at, `tracking category ${id}: name is required`);
    categoryCompany.set(id, r.companyId);
    out.trackingCategories.push({ ...r, id });
  });

  const dupOption = seen('tracking option');
  (batch.trackingOptions ?? []).forEach((r, index) => {
    const at: BatchLocation = { kind: 'trackingOptions', index };
    const id = parseGuid(String(r.id));
    const categoryId = parseGuid(String(r.categoryId));
    if (!id) return fail(at, `tracking option id "${r.id}" is not a GUID`);
    dupOption(id, at);
    if (!categoryId || !categoryCompany.has(categoryId))
      return fail(at, `tracking option ${id}: unknown category ${r.categoryId}`);
    checkOwner(owners.option, id, categoryCompany.get(categoryId), at, 'tracking option');
    if (!isText(r.name)) fail(at, `tracking option ${id}: name is required`);
    optionCategory.set(id, categoryId);
    out.trackingOptions.push({ ...r, id, categoryId });
  });

  const goodDates = new Set<string>();
  const guids = new Map<string, string | undefined>(); // raw → canonical, so 1M lines don't re-parse the same ids
  const guid = (raw: string) => {
    let g = guids.get(raw);
    if (g === undefined && !guids.has(raw)) guids.set(raw, (g = parseGuid(String(raw))));
    return g;
  };
  const entries = batch.entries ?? [];
  for (let entryIndex = 0; entryIndex < entries.length; entryIndex++) {
    if (issues.length >= MAX_ISSUES) break;
    const e = entries[entryIndex]!;
    // Messages are built only on failure (a 1M-entry batch must not allocate a name per line).
    const name = () => `entry ${e.ref ?? `#${entryIndex + 1}`}${typeof e.date === 'string' ? ` (${e.date})` : ''}`;
    const at: BatchLocation = { kind: 'entry', entryIndex };
    if (!companies.has(e.companyId)) {
      fail(at, `${name()}: unknown company ${e.companyId}`);
      continue;
    }
    if (locationCompany.get(e.locationId) !== e.companyId)
      fail(at, `${name()}: unknown location ${e.locationId} for company ${e.companyId}`);
    if (!goodDates.has(e.date)) {
      if (typeof e.date === 'string' && isIsoDate(e.date)) goodDates.add(e.date);
      else fail(at, `${name()}: invalid date "${e.date}" (expected YYYY-MM-DD)`);
    }
    if (!Array.isArray(e.lines) || e.lines.length === 0) {
      fail(at, `${name()}: has no lines`);
      continue;
    }
    let sum = 0n;
    let small = 0; // exact while |partial sums| stay below 2^53; BigInt only when needed
    const lines: NormalizedLine[] = [];
    for (let lineIndex = 0; lineIndex < e.lines.length; lineIndex++) {
      const l = e.lines[lineIndex]!;
      const lfail = (msg: string) =>
        fail({ kind: 'entry', entryIndex, lineIndex }, `${name()}, its ${ordinal(lineIndex + 1)} line: ${msg}`);
      if (accountCompany.get(l.accountId) !== e.companyId)
        lfail(`unknown account ${l.accountId} for company ${e.companyId}`);
      if (!Number.isSafeInteger(l.cents)) lfail(`amount ${l.cents} is not a safe integer number of cents`);
      else if (Number.isSafeInteger(small + l.cents)) small += l.cents;
      else {
        sum += BigInt(small) + BigInt(l.cents);
        small = 0;
      }
      const locationId = l.locationId ?? e.locationId;
      if (l.locationId != null && locationCompany.get(l.locationId) !== e.companyId) {
        lfail(`unknown location ${l.locationId} for company ${e.companyId}`);
      }
      const raw = l.trackingOptionIds ?? [];
      const optionIds: string[] = [];
      let firstCategory: string | undefined;
      let categories: Set<string> | undefined;
      for (const r of raw) {
        const id = guid(r);
        const category = id ? optionCategory.get(id) : undefined;
        if (!id || !category || categoryCompany.get(category) !== e.companyId) {
          lfail(`unknown tracking option ${r} for company ${e.companyId}`);
          continue;
        }
        if (firstCategory === undefined) firstCategory = category;
        else {
          categories ??= new Set([firstCategory]);
          if (categories.has(category)) lfail(`more than one option of tracking category ${category}`);
          categories.add(category);
        }
        optionIds.push(id);
      }
      if (optionIds.length > 1) optionIds.sort();
      const tagKey = optionIds.length === 0 ? '' : optionIds.length === 1 ? optionIds[0]! : tagSetKey(optionIds);
      lines.push({ accountId: l.accountId, locationId, cents: l.cents, optionIds, tagKey });
    }
    sum += BigInt(small);
    if (sum !== 0n) fail(at, `${name()}: lines do not balance (they sum to ${sum} cents, expected 0)`);
    out.entries.push({
      companyId: e.companyId,
      locationId: e.locationId,
      date: e.date,
      memo: e.memo ?? null,
      isPosted: e.isPosted ?? true,
      ref: e.ref === undefined || e.ref === '' ? null : e.ref,
      lines,
    });
  }

  if (issues.length > 0) throw new LedgerValidationError(issues);
  return out;
}
