/**
 * The check of a batch's journal entries: each entry's company, location and date, and each line's account,
 * location, amount and tracking options (at most one per category); an entry's lines balance. It runs per line of
 * batches of a million entries: messages are built only on failure, GUIDs parsed once per distinct text, and the sum
 * is exact in numbers while it can be (BigInt only past 2^53).
 */
import type { LedgerBatch } from '../../domain/ledger.ts';
import { isIsoDate } from '../../scalars/dates.ts';
import { parseGuid } from '../../scalars/guids.ts';
import { ordinal, type BatchLocation } from '../ledger/errors.ts';
import { tagSetKey } from '../ledger/tag-sets.ts';
import type { BatchCheck } from './batch-check.ts';
import type { NormalizedLine } from './normalized-batch.ts';

export function checkEntries(batch: LedgerBatch, check: BatchCheck): void {
  const { companies, locationCompany, accountCompany, categoryCompany, optionCategory } = check.known;
  const fail = (at: BatchLocation, message: string) => check.fail(at, message);
  const goodDates = new Set<string>();
  const guids = new Map<string, string | undefined>(); // raw → canonical, so 1M lines don't re-parse the same ids
  const guid = (raw: string) => {
    let g = guids.get(raw);
    if (g === undefined && !guids.has(raw)) guids.set(raw, (g = parseGuid(String(raw))));
    return g;
  };
  const entries = batch.entries ?? [];
  for (let entryIndex = 0; entryIndex < entries.length; entryIndex++) {
    if (check.full) break;
    const e = entries[entryIndex]!;
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
    check.out.entries.push({
      companyId: e.companyId,
      locationId: e.locationId,
      date: e.date,
      memo: e.memo ?? null,
      isPosted: e.isPosted ?? true,
      ref: e.ref === undefined || e.ref === '' ? null : e.ref,
      lines,
    });
  }
}
