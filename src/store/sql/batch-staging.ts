/** Turns a validated batch into columnar staging rows with ids assigned (entry, line, tag set). */
import type { NormalizedBatch } from '../batch/normalized-batch.ts';
import type { Staging } from './session.ts';

export function buildStaging(
  batch: NormalizedBatch,
  firstEntryId: number,
  firstLineId: number,
  tagSetId: (companyId: number, tagKey: string) => number,
): Staging {
  const st: Staging = {
    entries: { id: [], companyId: [], locationId: [], date: [], memo: [], posted: [], ref: [] },
    lines: {
      id: [],
      entryId: [],
      companyId: [],
      locationId: [],
      accountId: [],
      tagSetId: [],
      date: [],
      posted: [],
      cents: [],
    },
  };
  let entryId = firstEntryId;
  let lineId = firstLineId;
  const { entries: E, lines: L } = st;
  for (const e of batch.entries) {
    E.id.push(entryId);
    E.companyId.push(e.companyId);
    E.locationId.push(e.locationId);
    E.date.push(e.date);
    E.memo.push(e.memo);
    E.posted.push(e.isPosted);
    E.ref.push(e.ref);
    for (const l of e.lines) {
      L.id.push(lineId);
      L.entryId.push(entryId);
      L.companyId.push(e.companyId);
      L.locationId.push(l.locationId);
      L.accountId.push(l.accountId);
      L.tagSetId.push(tagSetId(e.companyId, l.tagKey));
      L.date.push(e.date);
      L.posted.push(e.isPosted);
      L.cents.push(l.cents);
      lineId++;
    }
    entryId++;
  }
  return st;
}
