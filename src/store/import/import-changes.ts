/**
 * What an import would change in data the store already holds, found before anything is written: a reference row
 * that gives an existing company, location, account, standard account, tracking category or option another name or
 * other attributes, and entries added to a company that already has figures. The import tools list these and go on
 * only when the user confirms, or passes the flag that allows that kind of change.
 */
import type { CompanyCatalog, LedgerBatch } from '../../domain/ledger.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';

export type ImportChangeKind = 'reference' | 'entries';

export interface ImportChange {
  kind: ImportChangeKind;
  /** One line for a human, e.g. `company 1: name "Harbor Bistro Group" → "Worked Example Co"`. */
  text: string;
}

/** The flag that allows each kind of change without asking. */
export const IMPORT_CHANGE_FLAGS: Record<ImportChangeKind, string> = {
  reference: '--update-reference',
  entries: '--append',
};

/** What the user allowed up front (the flags). */
export type AllowedChanges = Partial<Record<ImportChangeKind, boolean>>;

const quote = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

/** `label: name "a" → "b", type Income → COGS` for the fields that differ, or nothing. */
function differences<T extends object>(label: string, stored: T | undefined, incoming: T, fields: (keyof T)[]) {
  if (!stored) return [];
  const changed = fields.filter((f) => (stored[f] ?? null) !== (incoming[f] ?? null));
  if (!changed.length) return [];
  const parts = changed.map((f) => `${String(f)} ${quote(stored[f])} → ${quote(incoming[f])}`);
  return [{ kind: 'reference' as const, text: `${label}: ${parts.join(', ')}` }];
}

/** The companies whose catalogs the batch's rows touch, and the journal's. */
function companiesOf(references: LedgerBatch, companyId: number): number[] {
  return [
    ...new Set([
      companyId,
      ...(references.companies ?? []).map((c) => c.id),
      ...[
        ...(references.locations ?? []),
        ...(references.accounts ?? []),
        ...(references.standardAccounts ?? []),
        ...(references.trackingCategories ?? []),
      ].map((r) => r.companyId),
    ]),
  ];
}

/** Changes of the reference rows to the stored catalogs. */
function referenceChanges(references: LedgerBatch, catalogs: Map<number, CompanyCatalog>): ImportChange[] {
  /** Each stored row by id, the first catalog holding it winning; built once per kind, not searched per row. */
  const byId = <T extends { id: unknown }>(pick: (c: CompanyCatalog) => T[]) => {
    const rows = new Map<unknown, T>();
    for (const catalog of catalogs.values()) for (const r of pick(catalog)) if (!rows.has(r.id)) rows.set(r.id, r);
    return rows;
  };
  const stored = {
    locations: byId((c) => c.locations),
    accounts: byId((c) => c.accounts),
    standardAccounts: byId((c) => c.standardAccounts),
    trackingCategories: byId((c) => c.trackingCategories),
    trackingOptions: byId((c) => c.trackingOptions),
  };
  return [
    ...(references.companies ?? []).flatMap((c) =>
      differences(`company ${c.id}`, catalogs.get(c.id)?.company, c, [
        'name',
        'baseCurrency',
        'fiscalYearStartMonth',
        'timeZone',
      ]),
    ),
    ...(references.locations ?? []).flatMap((l) =>
      differences(`location ${l.id} (company ${l.companyId})`, stored.locations.get(l.id), l, ['name']),
    ),
    ...(references.accounts ?? []).flatMap((a) =>
      differences(`account ${a.id} (company ${a.companyId})`, stored.accounts.get(a.id), a, [
        'name',
        'number',
        'type',
        'parentId',
        'isActive',
        'standardAccountId',
      ]),
    ),
    ...(references.standardAccounts ?? []).flatMap((a) =>
      differences(`standard account ${a.id} (company ${a.companyId})`, stored.standardAccounts.get(a.id), a, [
        'name',
        'number',
        'type',
        'parentId',
        'sortOrder',
      ]),
    ),
    ...(references.trackingCategories ?? []).flatMap((t) =>
      differences(`tracking category ${t.id}`, stored.trackingCategories.get(t.id), t, ['name']),
    ),
    ...(references.trackingOptions ?? []).flatMap((o) =>
      differences(`tracking option ${o.id}`, stored.trackingOptions.get(o.id), o, ['name', 'categoryId']),
    ),
  ];
}

/**
 * What loading `references` and a journal for `companyId` would change in the store, read by SQL before the load.
 * Entries re-imported under `--replace` are a change the user asked for by name, so they are not listed again.
 */
export async function importChanges(
  store: Pick<LedgerStore, 'storedCatalog' | 'pnlSpan'>,
  references: LedgerBatch,
  companyId: number,
): Promise<ImportChange[]> {
  const catalogs = new Map<number, CompanyCatalog>();
  for (const id of companiesOf(references, companyId)) {
    const catalog = await store.storedCatalog(id);
    if (catalog) catalogs.set(id, catalog);
  }
  const changes = referenceChanges(references, catalogs);
  const span = catalogs.has(companyId) ? await store.pnlSpan(companyId) : undefined;
  if (span && !references.replaceEntries) {
    changes.push({
      kind: 'entries',
      text:
        `company ${companyId} already has entries (figures from ${span.first} to ${span.last}): ` +
        "the journal's entries are added to them",
    });
  }
  return changes;
}

/** The changes the flags do not allow (those to confirm). */
export function unallowed(changes: readonly ImportChange[], allowed: AllowedChanges): ImportChange[] {
  return changes.filter((c) => !allowed[c.kind]);
}

/**
 * The one sentence of a refused import: nothing was written, and the flags that let it go on.
 */
export function refusalSentence(changes: readonly ImportChange[]): string {
  const flags = [...new Set(changes.map((c) => IMPORT_CHANGE_FLAGS[c.kind]))];
  return (
    'Nothing was written: this import changes existing data (listed above); ' +
    `to go on, run it again with ${flags.join(' ')}.`
  );
}

/** An import the user did not confirm: nothing was written. */
export class ImportNotConfirmed extends Error {
  override readonly name = 'ImportNotConfirmed';
  constructor(readonly changes: ImportChange[]) {
    super(refusalSentence(changes));
  }
}
