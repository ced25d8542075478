/**
 * Which report row each account's amounts land in (pnl-semantics §3.5, §3.7): the native account, or with
 * account mapping its standard account (unmapped accounts go to `Unmapped <Type>` in their own section).
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

/** Account id → row key, for every P&L account of the catalog. */
export function rowKeysByAccount(catalog: CompanyCatalog, useAccountMapping: boolean): Map<number, RowKey> {
  const accounts = new Map(catalog.accounts.map((a) => [a.id, a]));
  const standards = new Map(catalog.standardAccounts.map((s) => [s.id, s]));
  const keys = new Map<number, RowKey>();
  for (const account of catalog.accounts) {
    if (!isPnl(account.type)) continue;
    keys.set(account.id, useAccountMapping ? mappedKey(account, standards) : nativeKey(account, accounts));
  }
  return keys;
}

function nativeKey(account: Account, accounts: Map<number, Account>): RowKey {
  return {
    key: `a${account.id}`,
    section: SECTION_OF_TYPE.get(account.type as PnlAccountType)!,
    accountNumber: account.number ?? undefined,
    name: account.name,
    path: pathOf(account, accounts),
    synthetic: false,
  };
}

function mappedKey(account: Account, standards: Map<number, StandardAccount>): RowKey {
  const target = account.standardAccountId === null ? undefined : standards.get(account.standardAccountId);
  // A target outside the P&L would drop the amount from the report; it stays visible as unmapped instead.
  if (!target || !isPnl(target.type)) {
    const section = SECTION_OF_TYPE.get(account.type as PnlAccountType)!;
    return {
      key: `u${account.type}`,
      section,
      name: section.unmappedLabel,
      path: [section.unmappedLabel],
      synthetic: true,
    };
  }
  return {
    key: `s${target.id}`,
    section: SECTION_OF_TYPE.get(target.type)!,
    accountNumber: target.number ?? undefined,
    name: target.name,
    path: pathOf(target, standards),
    sortOrder: target.sortOrder,
    synthetic: false,
  };
}
