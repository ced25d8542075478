/**
 * Which report row each account's amounts land in (pnl-semantics §3.5, §3.7): the native account, or with
 * account mapping its standard account (unmapped accounts go to `Unmapped <Type>` in their own section). Kept per
 * frozen catalog: the stores freeze the catalogs they share and replace, never change, one after an import.
 */
import type { Account, AccountType, CompanyCatalog, PnlAccountType, StandardAccount } from '../domain/ledger.ts';
import { SECTION_OF_TYPE, type SectionSpec } from './pnl-layout.ts';

export interface RowKey {
  key: string;
  section: SectionSpec;
  accountNumber?: string;
  name: string;
  /** Ancestor names from the top, then the row's own name. */
  path: string[];
  /** The row's label: `<number> <name>`, or the name of an unnumbered row. */
  rowName: string;
  /** The section's name, the ancestors' and the row's, joined by `:`. */
  fullName: string;
  /** For Default order with mapping. */
  sortOrder?: number;
  /** Synthetic rows (Unmapped) sort after real accounts. */
  synthetic: boolean;
}

function isPnl(type: AccountType): type is PnlAccountType {
  return SECTION_OF_TYPE.has(type as PnlAccountType);
}

function pathOf<T extends { id: number; name: string; parentId: number | null }>(
  node: T,
  byId: Map<number, T>,
): string[] {
  const names = [node.name];
  const seen = new Set([node.id]);
  for (let parent = node.parentId; parent !== null; ) {
    const up = byId.get(parent);
    if (!up || seen.has(up.id)) break;
    names.unshift(up.name);
    seen.add(up.id);
    parent = up.parentId;
  }
  return names;
}

type RowKeys = ReadonlyMap<number, Readonly<RowKey>>;
const keptKeys = new WeakMap<CompanyCatalog, { native?: RowKeys; mapped?: RowKeys }>();

/** Account id → row key, for every P&L account of the catalog (made once per frozen catalog and mapping). */
export function rowKeysByAccount(catalog: CompanyCatalog, useAccountMapping: boolean): RowKeys {
  if (!Object.isFrozen(catalog)) return makeRowKeys(catalog, useAccountMapping);
  let kept = keptKeys.get(catalog);
  if (!kept) keptKeys.set(catalog, (kept = {}));
  const which = useAccountMapping ? 'mapped' : 'native';
  return (kept[which] ??= makeRowKeys(catalog, useAccountMapping));
}

function makeRowKeys(catalog: CompanyCatalog, useAccountMapping: boolean): RowKeys {
  const accounts = new Map(catalog.accounts.map((a) => [a.id, a]));
  const standards = new Map(catalog.standardAccounts.map((s) => [s.id, s]));
  const keys = new Map<number, RowKey>();
  for (const account of catalog.accounts) {
    if (!isPnl(account.type)) continue;
    const key = useAccountMapping ? mappedKey(account, standards) : nativeKey(account, accounts);
    keys.set(account.id, Object.freeze(key));
  }
  return keys;
}

/** A row key with its labels. */
function withLabels(key: Omit<RowKey, 'rowName' | 'fullName'>): RowKey {
  return {
    ...key,
    rowName: key.accountNumber ? `${key.accountNumber} ${key.name}` : key.name,
    fullName: [key.section.name, ...key.path].join(':'),
  };
}

function nativeKey(account: Account, accounts: Map<number, Account>): RowKey {
  return withLabels({
    key: `a${account.id}`,
    section: SECTION_OF_TYPE.get(account.type as PnlAccountType)!,
    accountNumber: account.number ?? undefined,
    name: account.name,
    path: pathOf(account, accounts),
    synthetic: false,
  });
}

function mappedKey(account: Account, standards: Map<number, StandardAccount>): RowKey {
  const target = account.standardAccountId === null ? undefined : standards.get(account.standardAccountId);
  // A target outside the P&L would drop the amount from the report; it stays visible as unmapped instead.
  if (!target || !isPnl(target.type)) {
    const section = SECTION_OF_TYPE.get(account.type as PnlAccountType)!;
    return withLabels({
      key: `u${account.type}`,
      section,
      name: section.unmappedLabel,
      path: [section.unmappedLabel],
      synthetic: true,
    });
  }
  return withLabels({
    key: `s${target.id}`,
    section: SECTION_OF_TYPE.get(target.type)!,
    accountNumber: target.number ?? undefined,
    name: target.name,
    path: pathOf(target, standards),
    sortOrder: target.sortOrder,
    synthetic: false,
  });
}
