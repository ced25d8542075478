/** A load's posted lines added to the indexes already built, so a load does not make its companies be read again. */
import { isoEpochDay } from '../../scalars/dates.ts';
import type { CompanyBalances } from '../memory/balance-index.ts';
import type { Staging } from '../sql/session.ts';

/** Adds each posted line to its company's built index; returns the companies whose index changed. */
export function addPostedLines(lines: Staging['lines'], built: ReadonlyMap<number, CompanyBalances>): Set<number> {
  const changed = new Set<number>();
  for (let i = 0; i < lines.id.length; i++) {
    if (!lines.posted[i]) continue;
    const balances = built.get(lines.companyId[i]!);
    if (!balances) continue;
    balances.add(
      lines.locationId[i]!,
      lines.accountId[i]!,
      lines.tagSetId[i]!,
      isoEpochDay(lines.date[i]!),
      lines.cents[i]!,
    );
    changed.add(lines.companyId[i]!);
  }
  return changed;
}
