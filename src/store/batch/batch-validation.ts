/**
 * Validation of a LedgerBatch against itself and the rows already stored, shared by every adapter: named checks run
 * in order over one BatchCheck (batch-check.ts), which gathers their problems. Produces a normalized batch (canonical
 * GUIDs, sorted options, tag-set keys) or throws LedgerValidationError naming each problem (at most 50).
 */
import type { CompanyCatalog, LedgerBatch } from '../../domain/ledger.ts';
import { parseGuid } from '../../scalars/guids.ts';
import { BatchCheck } from './batch-check.ts';
import { checkEntries } from './check-entries.ts';
import {
  checkAccounts,
  checkCompanies,
  checkLocations,
  checkStandardAccounts,
  checkTrackingCategories,
  checkTrackingOptions,
} from './check-reference-rows.ts';
import type { NormalizedBatch } from './normalized-batch.ts';

/** The checks, in order: a row may refer only to rows stored or checked before it. */
const CHECKS = [
  checkCompanies,
  checkLocations,
  checkStandardAccounts,
  checkAccounts,
  checkTrackingCategories,
  checkTrackingOptions,
  checkEntries,
] as const;

/** Validates `batch` given the catalogs already stored for the companies it references. */
export function validateBatch(batch: LedgerBatch, stored: readonly CompanyCatalog[]): NormalizedBatch {
  const check = new BatchCheck(stored);
  for (const run of CHECKS) run(batch, check);
  return check.result();
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
