/**
 * What every check of a batch shares: the problems found so far (at most MAX_ISSUES), the rows known before and
 * during the check (stored rows first, the batch's rows as they are checked: they are upserts by id), who owned each
 * id before the batch, and the normalized batch being built.
 */
import type { CompanyCatalog } from '../../domain/ledger.ts';
import { LedgerValidationError, type BatchIssue, type BatchLocation } from '../ledger/errors.ts';
import type { NormalizedBatch } from './normalized-batch.ts';

const MAX_ISSUES = 50;

/** The company (or category) each known id belongs to. */
export interface KnownRows {
  companies: Set<number>;
  locationCompany: Map<number, number>;
  accountCompany: Map<number, number>;
  standardCompany: Map<number, number>;
  categoryCompany: Map<string, number>;
  optionCategory: Map<string, string>;
}

/**
 * Who owns each id before this batch: a batch may create or update records of the companies it names, never take
 * over another company's record by reusing its id (that silently moved accounts between companies).
 */
export interface Owners {
  location: Map<number, number>;
  account: Map<number, number>;
  standard: Map<number, number>;
  category: Map<string, number>;
  option: Map<string, number>;
}

export class BatchCheck {
  readonly known: KnownRows = {
    companies: new Set(),
    locationCompany: new Map(),
    accountCompany: new Map(),
    standardCompany: new Map(),
    categoryCompany: new Map(),
    optionCategory: new Map(),
  };
  readonly owners: Owners = {
    location: new Map(),
    account: new Map(),
    standard: new Map(),
    category: new Map(),
    option: new Map(),
  };
  readonly out: NormalizedBatch = {
    companies: [],
    locations: [],
    standardAccounts: [],
    accounts: [],
    trackingCategories: [],
    trackingOptions: [],
    entries: [],
  };
  private readonly issues: BatchIssue[] = [];

  constructor(stored: readonly CompanyCatalog[]) {
    const { known, owners } = this;
    for (const c of stored) {
      known.companies.add(c.company.id);
      for (const r of c.locations) {
        owners.location.set(r.id, r.companyId);
        known.locationCompany.set(r.id, r.companyId);
      }
      for (const r of c.accounts) {
        owners.account.set(r.id, r.companyId);
        known.accountCompany.set(r.id, r.companyId);
      }
      for (const r of c.standardAccounts) {
        owners.standard.set(r.id, r.companyId);
        known.standardCompany.set(r.id, r.companyId);
      }
      for (const r of c.trackingCategories) {
        owners.category.set(r.id, r.companyId);
        known.categoryCompany.set(r.id, r.companyId);
      }
      for (const r of c.trackingOptions) {
        owners.option.set(r.id, c.company.id);
        known.optionCategory.set(r.id, r.categoryId);
      }
    }
  }

  /** Records a problem; beyond MAX_ISSUES they are counted out. */
  fail(at: BatchLocation, message: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push({ at, message });
  }

  /** True once MAX_ISSUES problems are recorded: the entries' check stops there. */
  get full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }

  /** A check that `kind` ids appear once in the batch. */
  once(kind: string): (id: number | string, at: BatchLocation) => void {
    const ids = new Set<number | string>();
    return (id, at) => {
      if (ids.has(id)) this.fail(at, `${kind} ${id} appears twice in the batch`);
      ids.add(id);
    };
  }

  /** The row's company must be known (stored, or a company of the batch). */
  company(companyId: number, at: BatchLocation, what: string): void {
    if (!this.known.companies.has(companyId)) this.fail(at, `${what}: unknown company ${companyId}`);
  }

  /** The id must not belong to another company before this batch. */
  owner<K>(owner: Map<K, number>, id: K, companyId: number | undefined, at: BatchLocation, what: string): void {
    const current = owner.get(id);
    if (current !== undefined && companyId !== undefined && current !== companyId) {
      this.fail(
        at,
        `${what} ${String(id)} belongs to company ${current}; this import is for company ${companyId}: use another id`,
      );
    }
  }

  /** The normalized batch, or LedgerValidationError with every problem recorded. */
  result(): NormalizedBatch {
    if (this.issues.length > 0) throw new LedgerValidationError(this.issues);
    return this.out;
  }
}

export const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
export const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
