/**
 * The shared body of load(): runs inside the adapter's transaction (and load lock). Validates against stored
 * catalogs, upserts reference rows, registers new tag sets, stages the journal in bulk (adapter writer), then moves
 * it into journal_* tables and folds posted lines into balance_monthly / balance_daily.
 */
import type { CompanyCatalog, LedgerBatch } from '../../domain/ledger.ts';
import { batchIds, referencedCompanyIds, validateBatch } from '../batch/batch-validation.ts';
import type { NormalizedBatch } from '../batch/normalized-batch.ts';
import { type BatchIssue, LedgerValidationError } from '../ledger/errors.ts';
import { optionIdsOfKey } from '../ledger/tag-sets.ts';
import { buildStaging } from './batch-staging.ts';
import { ownerCompanyIds, readCatalog } from './catalog-sql.ts';
import { MOVE_FORM, type MoveForm, deltaSql, moveRows } from './move-rows.ts';
import type { Dialect } from './schema.ts';
import { type SqlSession, type StagingWriter, int, str } from './session.ts';

const upsert = (table: string, cols: string[]) =>
  `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
   ON CONFLICT (id) DO UPDATE SET ${cols
     .slice(1)
     .map((c) => `${c} = EXCLUDED.${c}`)
     .join(', ')}`;

const UPSERT = {
  company: upsert('companies', ['id', 'name', 'base_currency', 'fiscal_year_start_month', 'time_zone']),
  location: upsert('locations', ['id', 'company_id', 'name']),
  standard: upsert('standard_accounts', ['id', 'company_id', 'number', 'name', 'type', 'parent_id', 'sort_order']),
  account: upsert('accounts', [
    'id',
    'company_id',
    'number',
    'name',
    'type',
    'parent_id',
    'is_active',
    'standard_account_id',
  ]),
  category: upsert('tracking_categories', ['id', 'company_id', 'name']),
  option: upsert('tracking_options', ['id', 'category_id', 'name']),
};

export async function nextId(s: SqlSession, table: string): Promise<number> {
  const [row] = await s.query(`SELECT CAST(COALESCE(MAX(id), 0) AS VARCHAR) AS m FROM ${table}`);
  return int(row?.m ?? '0') + 1;
}

async function writeReferences(s: SqlSession, b: NormalizedBatch): Promise<void> {
  for (const r of b.companies)
    await s.query(UPSERT.company, [r.id, r.name, r.baseCurrency, r.fiscalYearStartMonth, r.timeZone]);
  for (const r of b.locations) await s.query(UPSERT.location, [r.id, r.companyId, r.name]);
  for (const r of b.standardAccounts) {
    await s.query(UPSERT.standard, [r.id, r.companyId, r.number, r.name, r.type, r.parentId, r.sortOrder]);
  }
  for (const r of b.accounts) {
    await s.query(UPSERT.account, [
      r.id,
      r.companyId,
      r.number,
      r.name,
      r.type,
      r.parentId,
      r.isActive,
      r.standardAccountId,
    ]);
  }
  for (const r of b.trackingCategories) await s.query(UPSERT.category, [r.id, r.companyId, r.name]);
  for (const r of b.trackingOptions) await s.query(UPSERT.option, [r.id, r.categoryId, r.name]);
}

/** Ensures every (company, tag key) used by the batch has a tag set; returns the lookup. */
async function registerTagSets(s: SqlSession, b: NormalizedBatch): Promise<(companyId: number, key: string) => number> {
  const wanted = new Map<number, Set<string>>();
  for (const e of b.entries) {
    let keys = wanted.get(e.companyId);
    if (!keys) wanted.set(e.companyId, (keys = new Set()));
    for (const l of e.lines) keys.add(l.tagKey);
  }
  const ids = new Map<string, number>(); // `${company}|${key}`
  let next = await nextId(s, 'tag_sets');
  for (const [companyId, keys] of wanted) {
    for (const r of await s.query('SELECT id, tag_key FROM tag_sets WHERE company_id = $1', [companyId])) {
      ids.set(`${companyId}|${str(r.tag_key)}`, int(r.id));
    }
    for (const key of keys) {
      if (ids.has(`${companyId}|${key}`)) continue;
      const id = next++;
      await s.query('INSERT INTO tag_sets (id, company_id, tag_key) VALUES ($1, $2, $3)', [id, companyId, key]);
      for (const o of optionIdsOfKey(key))
        await s.query('INSERT INTO tag_set_options (tag_set_id, option_id) VALUES ($1, $2)', [id, o]);
      ids.set(`${companyId}|${key}`, id);
    }
  }
  const byCompany = new Map<number, Map<string, number>>();
  for (const [k, id] of ids) {
    const sep = k.indexOf('|');
    const companyId = Number(k.slice(0, sep));
    let m = byCompany.get(companyId);
    if (!m) byCompany.set(companyId, (m = new Map()));
    m.set(k.slice(sep + 1), id);
  }
  return (companyId, key) => {
    const id = byCompany.get(companyId)?.get(key);
    if (id === undefined) throw new Error(`internal: no tag set for company ${companyId} key "${key}"`);
    return id;
  };
}

const MAX_SAFE_CENTS = '9007199254740991';
const MAX_REF_ISSUES = 50;

/**
 * Under `replaceEntries`: the stored entries whose ids the staged entries name leave the ledger (replaced_entries:
 * their posted lines join load_delta negated), then their rows and ids are deleted, so the staged ones take their
 * place.
 */
const REPLACED_SQL = `CREATE TEMP TABLE replaced_entries AS
   SELECT r.entry_id AS id FROM stage_entries s JOIN journal_entry_refs r ON r.company_id = s.company_id
     AND r.ref = s.ref`;
const REPLACE_SQL = [
  'DELETE FROM journal_lines WHERE entry_id IN (SELECT id FROM replaced_entries)',
  'DELETE FROM journal_entries WHERE id IN (SELECT id FROM replaced_entries)',
  'DELETE FROM journal_entry_refs WHERE entry_id IN (SELECT id FROM replaced_entries)',
  'DROP TABLE replaced_entries',
];

/**
 * Entry ids (the CSV's `entry` column) are kept per company: an entry id already loaded for its company, or twice
 * in one batch, is refused (re-importing a journal used to double every figure). Runs on the staged entries, so a
 * batch of any size is checked in one statement.
 */
async function checkEntryRefs(s: SqlSession, batch: NormalizedBatch, replace: boolean): Promise<void> {
  const issues: BatchIssue[] = [];
  const indexOf = new Map<string, number>(); // `${company}|${ref}` → entry index
  batch.entries.forEach((e, entryIndex) => {
    if (e.ref === null) return;
    const key = `${e.companyId}|${e.ref}`;
    if (!indexOf.has(key)) indexOf.set(key, entryIndex);
    else if (issues.length < MAX_REF_ISSUES)
      issues.push({ at: { kind: 'entry', entryIndex }, message: `entry ${e.ref} appears twice in the batch` });
  });
  const repeated = replace
    ? []
    : await s.query(
        `SELECT CAST(r.company_id AS VARCHAR) AS company, r.ref AS ref FROM stage_entries s
       JOIN journal_entry_refs r ON r.company_id = s.company_id AND r.ref = s.ref LIMIT ${MAX_REF_ISSUES}`,
      );
  for (const r of repeated) {
    issues.push({
      at: { kind: 'entry', entryIndex: indexOf.get(`${str(r.company)}|${str(r.ref)}`) ?? 0 },
      message: `entry ${str(r.ref)} was already imported for company ${str(r.company)} (an entry is never added twice)`,
    });
  }
  const position = (i: BatchIssue) => (i.at.kind === 'entry' ? i.at.entryIndex : 0);
  if (issues.length) throw new LedgerValidationError(issues.sort((x, y) => position(x) - position(y)));
}

/**
 * Every account-month a report can show must stay a safe integer of cents (2^53 - 1): a load that would push one
 * past it is refused at the first line on that account and month (it used to turn every report of the company
 * into a 500).
 */
export async function overfullAccountMonth(
  s: SqlSession,
  companies: readonly number[],
): Promise<{ accountId: number; month: string } | undefined> {
  const [over] = await s.query(
    `SELECT CAST(account_id AS VARCHAR) AS account, CAST(month AS VARCHAR) AS month FROM balance_monthly
      WHERE company_id = ANY($1) GROUP BY company_id, account_id, month
     HAVING SUM(cents) > ${MAX_SAFE_CENTS} OR SUM(cents) < -${MAX_SAFE_CENTS} ORDER BY month, account_id LIMIT 1`,
    [companies],
  );
  return over && { accountId: int(over.account), month: str(over.month).slice(0, 7) };
}

async function checkAccountMonths(s: SqlSession, batch: NormalizedBatch): Promise<void> {
  const over = await overfullAccountMonth(s, [...new Set(batch.entries.map((e) => e.companyId))]);
  if (!over) return;
  const { accountId, month } = over;
  for (let entryIndex = 0; entryIndex < batch.entries.length; entryIndex++) {
    const e = batch.entries[entryIndex]!;
    const lineIndex = e.date.startsWith(month) && e.isPosted ? e.lines.findIndex((l) => l.accountId === accountId) : -1;
    if (lineIndex >= 0) {
      throw new LedgerValidationError([
        {
          at: { kind: 'entry', entryIndex, lineIndex },
          message:
            `account ${accountId} would total more than 2^53 - 1 cents in ${month} (the largest amount a report ` +
            `can show exactly)`,
        },
      ]);
    }
  }
  throw new LedgerValidationError([
    {
      at: { kind: 'entry', entryIndex: 0 },
      message: `account ${accountId} would total more than 2^53 - 1 cents in ${month}`,
    },
  ]);
}

/** What a load changed, for an adapter that tells other processes (PostgreSQL: ledger_changes + NOTIFY). */
export interface LoadChange {
  /** Companies whose catalog, tag sets or figures the load may have changed. */
  companyIds: number[];
  /** False when the load wrote no reference row: the companies' catalogs are as they were. */
  catalogsChanged: boolean;
  /** True when the temp table load_delta holds the load's net change to the pre-aggregates (it had entries). */
  hasDelta: boolean;
}

/** Runs inside the load's transaction, after its rows are written and checked: the last step before COMMIT. */
export type ChangeRecorder = (s: SqlSession, change: LoadChange) => Promise<void>;

/** Companies of the batch's tracking options, through their categories (stored or in the batch). */
async function optionCompanyIds(s: SqlSession, b: NormalizedBatch): Promise<number[]> {
  const categories = [...new Set(b.trackingOptions.map((o) => o.categoryId))];
  if (categories.length === 0) return [];
  const rows = await s.query(
    'SELECT DISTINCT CAST(company_id AS VARCHAR) AS c FROM tracking_categories WHERE id = ANY($1)',
    [categories],
  );
  return rows.map((r) => int(r.c));
}

/** Validates the batch's reference rows against the stored catalogs and writes them (upserts), first in a load. */
export async function writeBatchReferences(
  s: SqlSession,
  batch: LedgerBatch,
  recordChange?: ChangeRecorder,
  moreCompanyIds: readonly number[] = [],
): Promise<{ normalized: NormalizedBatch; changed: (hasDelta: boolean) => Promise<void> }> {
  const stored: CompanyCatalog[] = [];
  const companies = new Set([
    ...referencedCompanyIds(batch),
    ...moreCompanyIds,
    ...(await ownerCompanyIds(s, batchIds(batch))),
  ]);
  for (const id of companies) {
    const c = await readCatalog(s, id);
    if (c) stored.push(c);
  }
  const normalized = validateBatch(batch, stored);
  await writeReferences(s, normalized);
  for (const id of await optionCompanyIds(s, normalized)) companies.add(id);
  const { entries: _, ...references } = normalized;
  const catalogsChanged = Object.values(references).some((rows) => rows.length > 0);
  const changed = async (hasDelta: boolean) =>
    recordChange?.(s, { companyIds: [...companies].sort((a, b) => a - b), catalogsChanged, hasDelta });
  return { normalized, changed };
}

/**
 * The staged journal (stage_* tables) joins the ledger: its net change (load_delta, less the replaced entries under
 * `replace`) is folded into the pre-aggregates, `checkMonths` refuses an account-month beyond 2^53 - 1 cents, and the
 * change is recorded before COMMIT.
 */
export async function moveStaged(
  s: SqlSession,
  form: MoveForm,
  replace: boolean,
  checkMonths: () => Promise<void>,
  changed: (hasDelta: boolean) => Promise<void>,
): Promise<void> {
  if (replace) await s.query(REPLACED_SQL);
  await s.query(deltaSql(replace));
  if (replace) for (const sql of REPLACE_SQL) await s.query(sql);
  await moveRows(s, form);
  await checkMonths();
  await changed(true);
  await s.query('DROP TABLE load_delta');
}

export async function loadBatch(
  s: SqlSession,
  dialect: Dialect,
  batch: LedgerBatch,
  writeStaging: StagingWriter,
  recordChange?: ChangeRecorder,
): Promise<number> {
  const { normalized, changed } = await writeBatchReferences(s, batch, recordChange);
  if (normalized.entries.length === 0) {
    await changed(false);
    return 0;
  }
  const tagSetId = await registerTagSets(s, normalized);
  const staging = buildStaging(
    normalized,
    await nextId(s, 'journal_entries'),
    await nextId(s, 'journal_lines'),
    tagSetId,
  );
  await writeStaging(s, staging);
  await checkEntryRefs(s, normalized, batch.replaceEntries === true);
  await moveStaged(
    s,
    MOVE_FORM[dialect],
    batch.replaceEntries === true,
    () => checkAccountMonths(s, normalized),
    changed,
  );
  return normalized.entries.length;
}
