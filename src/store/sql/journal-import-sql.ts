/**
 * The bulk body of loadJournal(): runs inside the adapter's transaction (and load lock). The engine reads the journal
 * CSV file (adapter reader: DuckDB read_csv, PostgreSQL COPY) and, in the same pass, shared SQL trims, checks and types
 * every row into import_rows (the first bad row's line is named with the message of scripts/import-format.md); the
 * reference rows are validated and written as load() does, then set-based SQL checks every entry (one date, known
 * location, accounts and tracking options of the company, one option per
 * category, balance, never imported before) and names the CSV line of the first problem, in the order the row-by-row
 * validation reported them. The checked rows become the stage_* tables with SQL, and join the ledger as any load
 * (moveStaged).
 */
import { JournalLineError, ordinal } from '../ledger/errors.ts';
import { JOURNAL_COLUMNS, type JournalColumn, type JournalFile } from '../ledger/writer.ts';
import { IMPORT_STEPS, type ImportProgress, type JournalLoad } from '../ledger/writer.ts';
import {
  MOVE_FORM,
  moveStaged,
  nextId,
  overfullAccountMonth,
  writeBatchReferences,
  type ChangeRecorder,
  type StagedTable,
} from './load-sql.ts';
import { STAGE_DDL, type Dialect } from './schema.ts';
import { int, str, type SqlParam, type SqlRow, type SqlSession } from './session.ts';

// ---------------------------------------------------------------- rows: the CSV's cells, checked and typed in SQL
// The SQL below is the same for DuckDB and PostgreSQL: anchored regular expressions (`~` is a full match in DuckDB,
// a search in PostgreSQL: the same when anchored), no casts of unchecked text.

// Each check has a fast path over the cell as read (one regular expression for the usual form) and the exact rule
// over the cell trimmed for the rest: the engines repeat an expression wherever a check refers to it, so the trimmed
// cell is only computed where it is needed. Casts accept the spaces around a value.
const trim = (c: string) => `trim(${c})`;
/** A cell's value without the spaces around it, trimmed only when it has some. */
const trimmed = (c: string) => `(CASE WHEN ${c} LIKE ' %' OR ${c} LIKE '% ' THEN trim(${c}) ELSE ${c} END)`;
/** `fast OR slow`, with `slow` computed only where `fast` fails (a projection computes both sides of an OR). */
const orElse = (fast: string, slow: string) => `(CASE WHEN ${fast} THEN true ELSE ${slow} END)`;

/** A count of digits without leading zeros is a safe integer (at most 2^53 - 1). */
const safeDigits = (digits: string) =>
  `(length(ltrim(${digits}, '0')) < 16 OR (length(ltrim(${digits}, '0')) = 16 AND ltrim(${digits}, '0') <= '9007199254740991'))`;
const positiveInteger = (cell: string) => {
  const v = trim(cell);
  return orElse(
    `${cell} ~ '^0*[1-9][0-9]{0,14}$'`,
    `(${v} ~ '^[0-9]+$' AND ltrim(${v}, '0') <> '' AND ${safeDigits(v)})`,
  );
};

/** `YYYY-MM-DD` naming a real day of years 0100-9999 (as isIsoDate): days 01-28 of any month need no arithmetic. */
const DAY = "'^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$'";
const isoDate = (cell: string) => {
  const d = trim(cell);
  const [y, m, day] = [
    `CAST(substr(${d}, 1, 4) AS INTEGER)`,
    `CAST(substr(${d}, 6, 2) AS INTEGER)`,
    `CAST(substr(${d}, 9, 2) AS INTEGER)`,
  ];
  return orElse(
    `${cell} ~ ${DAY} AND substr(${cell}, 1, 2) <> '00' AND substr(${cell}, 9, 2) <= '28'`,
    `CASE WHEN ${d} ~ ${DAY} AND substr(${d}, 1, 2) <> '00' THEN ${day} <=
      CASE ${m} WHEN 2 THEN CASE WHEN (${y} % 4 = 0 AND ${y} % 100 <> 0) OR ${y} % 400 = 0 THEN 29 ELSE 28 END
        WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END ELSE false END`,
  );
};

/** A decimal of at most 2 decimals whose cents are a safe integer; its cents (exact: DECIMAL(18, 2) holds it). */
const centsDigits = (a: string) => `(split_part(ltrim(${a}, '+-'), '.', 1) || rpad(split_part(${a}, '.', 2), 2, '0'))`;
const amount = (cell: string) =>
  orElse(
    `${cell} ~ '^[+-]?0*[0-9]{1,13}([.][0-9]{1,2})?$'`,
    `(${trim(cell)} ~ '^[+-]?[0-9]+([.][0-9]{1,2})?$' AND ${safeDigits(centsDigits(trim(cell)))})`,
  );
const cents = (a: string) => `CAST(CAST(${a} AS DECIMAL(18, 2)) * 100 AS BIGINT)`;

/** A GUID as .NET's Guid.Parse read it (guids.ts): 32 hex, or 8-4-4-4-12, bare or in {} or (). */
const HEX = (n: number) => `[0-9a-fA-F]{${n}}`;
const GUID_BODY = `(${HEX(32)}|${HEX(8)}-${HEX(4)}-${HEX(4)}-${HEX(4)}-${HEX(12)})`;
const GUID = `(${GUID_BODY}|[{]${GUID_BODY}[}]|[(]${GUID_BODY}[)])`;
/** Options already canonical (32 lowercase hex each), `;`-separated without spaces or empty ones: the usual form. */
const plainOptions = (o: string) => `${o} ~ '^[0-9a-f]{32}(;[0-9a-f]{32})*$'`;
/** `;`-separated GUIDs, each trimmed, empty ones ignored. */
const options = (o: string) => orElse(`${o} = '' OR ${plainOptions(o)}`, `${o} ~ '^ *${GUID}? *(; *${GUID}? *)*$'`);
/** A checked option's canonical form (32 lowercase hex): only other forms need their braces and hyphens removed. */
const canonical = (o: string) =>
  `CASE WHEN length(${o}) = 32 THEN lower(${o}) ELSE lower(regexp_replace(${o}, '[^0-9a-fA-F]', '', 'g')) END`;

const TRUE_WORDS = "('', '1', 'true', 'yes', 'on')";
const posted = (p: string) =>
  orElse(
    `${p} IN ('', 'true', 'false')`,
    `lower(${trim(p)}) IN ${TRUE_WORDS} OR lower(${trim(p)}) IN ('0', 'false', 'no', 'off')`,
  );
const isPosted = (p: string) =>
  `(CASE ${p} WHEN 'true' THEN true WHEN 'false' THEN false WHEN '' THEN true ELSE lower(${trim(p)}) IN ${TRUE_WORDS} END)`;

/** A per-row check: its predicate over the cells, and its problem's text. */
interface RowCheck {
  ok: string;
  problem: string;
  /**
   * Cast-first reading (castFirst): a cheaper test over what CAST_FIRST computed from the cell (its cast value
   * `<cell>_v`, or `options_plain`) that holds only for a cell the check accepts, in its usual form; `ok` decides the
   * rest.
   */
  usual?: string;
}

/** The per-row checks, in the order a row was checked. */
const ROW_CHECKS: readonly RowCheck[] = [
  { ok: orElse(`entry <> '' AND entry NOT LIKE ' %'`, `${trim('entry')} <> ''`), problem: "'entry is empty'" },
  {
    ok: isoDate('date'),
    problem: `'date "' || ${trim('date')} || '" is not a valid YYYY-MM-DD date'`,
    // A day's text (DateStyle ISO) of years 0100-9999 is its YYYY-MM-DD ('infinity' and BC days are out of range).
    usual: `date_v BETWEEN DATE '0100-01-01' AND DATE '9999-12-31' AND CAST(date_v AS VARCHAR) = date`,
  },
  {
    ok: positiveInteger('location'),
    problem: `'location "' || ${trim('location')} || '" must be a positive integer'`,
    usual: `location_v BETWEEN 1 AND 9007199254740991 AND CAST(location_v AS VARCHAR) = location`,
  },
  {
    ok: positiveInteger('account'),
    problem: `'account "' || ${trim('account')} || '" must be a positive integer'`,
    usual: `account_v BETWEEN 1 AND 9007199254740991 AND CAST(account_v AS VARCHAR) = account`,
  },
  {
    ok: amount('amount'),
    problem: `'amount "' || ${trim('amount')} || '" is not a decimal with at most 2 decimals'`,
    // A decimal's text keeps the cell's digits: no sign '+', no leading zeros, no exponent; NaN and infinities are out
    // of range.
    usual: `amount_v BETWEEN -90071992547409.91 AND 90071992547409.91 AND scale(amount_v) <= 2 AND CAST(amount_v AS VARCHAR) = amount`,
  },
  // Its text names the first bad option (firstBadOption): found for the one row refused, not for every row.
  { ok: options('options'), problem: `'${'option'}'`, usual: 'options_plain' },
  { ok: posted('posted'), problem: `'posted "' || lower(${trim('posted')}) || '" must be true or false'` },
];

/**
 * PostgreSQL's casts read more forms than the checks accept ('2024-1-5', '1e3', 'NaN', spaces), and refuse bad text
 * with an error rather than a NULL (15 has no pg_input_is_valid). So its usual reading casts every cell first, accepts
 * a cell when its cast value prints back as the cell itself (RowCheck.usual), and checks only the other cells with
 * the regular expressions; a cast that fails (a bad cell) fails the statement, and the reader then reads the rows
 * again without casts first (`castFirst: false`), which names the line.
 */
const CAST_FIRST = {
  casts: { date: 'DATE', location: 'BIGINT', account: 'BIGINT', amount: 'NUMERIC' } as const,
  /**
   * `options_plain`: true when the cell is '' or one or two GUIDs of 32 lowercase hex (uuid reads the hex, cheaper than
   * a regular expression); NULL otherwise, for the regular expressions to decide.
   */
  plainOptions: `CASE WHEN options = '' THEN true
    WHEN length(options) = 32 THEN CASE WHEN options = lower(options) AND CAST(options AS uuid) IS NOT NULL THEN true END
    WHEN length(options) = 65 AND substr(options, 33, 1) = ';' THEN CASE WHEN options = lower(options)
      AND CAST(substr(options, 1, 32) AS uuid) IS NOT NULL AND CAST(substr(options, 34, 32) AS uuid) IS NOT NULL THEN true END END`,
};

/** The first option of a row's `options` cell that is not a GUID (the row is known to have one). */
async function firstBadOption(s: SqlSession, cell: string): Promise<string> {
  const [r] = await s.query(
    `SELECT o FROM (SELECT ${trim("split_part($1, ';', g.i)")} AS o, g.i FROM generate_series(1, $2) AS g(i)) x
    WHERE o <> '' AND NOT o ~ '^${GUID}$' ORDER BY i LIMIT 1`,
    [cell, cell.split(';').length],
  );
  return str(r?.o);
}

/**
 * An options cell's tag key (tag-sets.ts): its distinct canonical options (32 lowercase hex), sorted, joined with ',',
 * by the engine's own list functions. Computed once per distinct cell (import_cells), not once per line.
 */
const TAG_KEY: Record<Dialect, string> = {
  duckdb: `CASE WHEN options = '' THEN '' ELSE array_to_string(list_sort(list_distinct(list_transform(
    list_filter(list_transform(string_split(options, ';'), lambda o: trim(o)), lambda o: o <> ''), lambda o: ${canonical('o')}))), ',') END`,
  postgres: `CASE WHEN options = '' THEN '' ELSE COALESCE((SELECT string_agg(DISTINCT ${canonical('o')} COLLATE "C", ',' ORDER BY ${canonical('o')} COLLATE "C")
    FROM (SELECT trim(x) AS o FROM unnest(string_to_array(options, ';')) AS x) u WHERE o <> ''), '') END`,
};

/**
 * A cast amount's cents; NULL for NaN and the infinities, which have none (their casts fail without SQLSTATE class 22).
 */
const AMOUNT_V_CENTS =
  'CASE WHEN amount_v BETWEEN -90071992547409.91 AND 90071992547409.91 THEN CAST(amount_v * 100 AS BIGINT) END';

/**
 * How importRowsSql reads the cells: `castFirst` (PostgreSQL's usual reading, see CAST_FIRST) may fail on a bad cell.
 */
export interface RowsReading {
  castFirst?: boolean;
}

/**
 * The statement that makes import_rows from the raw rows (`source`: text columns c0, c1, …): each row's cells
 * checked and typed in one pass (a value is cast only once its check passed, unless `castFirst`), with `problem`, the
 * text of its first failed check (NULL when none failed), and `breaks`, the line breaks inside its cells. With the
 * source's ordinal column (PostgreSQL's), each row's `line` too.
 */
function importRowsSql(
  journal: JournalFile,
  dialect: Dialect,
  source: string,
  ordinal?: string,
  { castFirst = false }: RowsReading = {},
): string {
  const raw = (c: JournalColumn) => (journal.columns[c] === undefined ? "''" : `COALESCE(c${journal.columns[c]}, '')`);
  const all = Array.from({ length: journal.width }, (_, i) => `COALESCE(c${i}, '')`);
  const breaks = journal.quoted ? all.map((c) => `length(${c}) - length(replace(${c}, chr(10), ''))`).join(' + ') : '0';
  const keep = ordinal ? `${ordinal}, ` : '';
  const line = ordinal ? `CAST(${lineOf(ordinal, journal.quoted)} AS BIGINT) AS line, ` : '';
  // PostgreSQL would pull the checks up into each place that refers to them (OFFSET 0 keeps them computed once).
  const fence = dialect === 'postgres' ? ' OFFSET 0' : '';
  const casts = Object.entries(CAST_FIRST.casts);
  const cells = `SELECT ${keep}${JOURNAL_COLUMNS.map((c) => `${raw(c)} AS ${c}`).join(', ')}, ${breaks} AS breaks FROM ${source}`;
  const typed = castFirst
    ? `SELECT *, ${casts.map(([c, type]) => `CAST(${c} AS ${type}) AS ${c}_v`).join(', ')}, ${CAST_FIRST.plainOptions} AS options_plain
    FROM (${cells}) c${fence}`
    : `SELECT * FROM (${cells}) c${fence}`;
  const value = (c: keyof typeof CAST_FIRST.casts) => (castFirst ? `${c}_v` : `CAST(${c} AS ${CAST_FIRST.casts[c]})`);
  // Cast first, every value is typed already and a check only names a problem (a refused row's values do not
  // matter): each check is computed once, in the CASE that names the first failed one. Otherwise a value is cast only
  // once its check passed, so the checks are computed first (ok0, ok1, …).
  const checks = castFirst
    ? ROW_CHECKS.map((c) => (c.usual ? orElse(c.usual, c.ok) : c.ok))
    : ROW_CHECKS.map((_c, i) => `ok${i}`);
  const rows = castFirst
    ? `(${typed}) t`
    : `(SELECT *, ${ROW_CHECKS.map((c, i) => `${c.ok} AS ok${i}`).join(', ')} FROM (${typed}) t${fence}) f`;
  const checked = (check: number, v: string) => (castFirst ? v : `CASE WHEN ${checks[check]} THEN ${v} END`);
  return `CREATE TEMP TABLE import_rows AS
    SELECT ${line}${trimmed('entry')} AS ref, ${checked(1, value('date'))} AS entry_date, ${checked(2, value('location'))} AS location_id,
           ${checked(3, value('account'))} AS account_id, ${checked(4, castFirst ? AMOUNT_V_CENTS : cents('amount'))} AS amount_cents,
           options, NULLIF(${trimmed('memo')}, '') AS memo, ${isPosted('posted')} AS is_posted,
           CASE ${ROW_CHECKS.map((c, i) => `WHEN NOT ${checks[i]} THEN ${c.problem}`).join(' ')} END AS problem, CAST(breaks AS BIGINT) AS breaks
      FROM ${rows}`;
}

/**
 * A row's CSV line: its ordinal + 2 (the header is line 1), plus, when cells may hold line breaks, those of the rows
 * before it.
 */
function lineOf(ordinal: string, breaks: boolean): string {
  return breaks
    ? `${ordinal} + 2 + COALESCE(SUM(breaks) OVER (ORDER BY ${ordinal} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)`
    : `${ordinal} + 2`;
}

/**
 * Reads a journal file with the engine into import_rows (`createRows` over the raw rows, given their ordinal column
 * when the source has one); returns the ordinal of the rows when they have no `line` yet (DuckDB's rowid).
 */
export interface JournalReader {
  dialect: Dialect;
  read(
    journal: JournalFile,
    createRows: (source: string, ordinal?: string, reading?: RowsReading) => string,
    progress?: (fraction: number) => void,
  ): Promise<{ ordinal?: string }>;
}

/** import_lines: import_rows with each row's CSV line. The first row with a problem is refused at its line. */
async function lineRows(s: SqlSession, ordinal: string | undefined): Promise<void> {
  if (ordinal === undefined) await s.query('CREATE TEMP VIEW import_lines AS SELECT * FROM import_rows');
  else {
    const breaks = (await s.query('SELECT 1 AS x FROM import_rows WHERE breaks > 0 LIMIT 1')).length > 0;
    await s.query(
      `CREATE TEMP VIEW import_lines AS SELECT CAST(${lineOf(ordinal, breaks)} AS BIGINT) AS line, * FROM import_rows`,
    );
  }
  const [r] = await s.query(
    'SELECT line, problem, options FROM import_lines WHERE problem IS NOT NULL ORDER BY line LIMIT 1',
  );
  if (!r) return;
  const problem = str(r.problem);
  throw new JournalLineError(
    int(r.line),
    problem === 'option' ? `option "${await firstBadOption(s, str(r.options))}" is not a GUID` : problem,
  );
}

/**
 * The distinct accounts, locations and options cells of the lines, together (a few thousand): the catalog checks, the
 * cells and through them the tag sets read these instead of every line.
 */
const LINE_KEYS_SQL =
  'CREATE TEMP TABLE import_line_keys AS SELECT DISTINCT account_id, location_id, options FROM import_rows';

/** Each distinct options cell of the journal (a journal repeats a few) with its tag key. */
const CELLS_SQL = (dialect: Dialect) =>
  `CREATE TEMP TABLE import_cells AS SELECT options, ${TAG_KEY[dialect]} AS tag_key FROM (SELECT DISTINCT options FROM import_line_keys) c`;

/**
 * Each option of each cell, canonical (32 lowercase hex), repeats kept: the option checks look at the cells, not at
 * every line.
 */
const CELL_OPTIONS_SQL = `CREATE TEMP TABLE import_cell_options AS
  SELECT options, ${canonical(trim('o'))} AS option_id
    FROM (SELECT options, unnest(string_to_array(options, ';')) AS o FROM import_cells WHERE options <> '') u
   WHERE ${trim('o')} <> ''`;

/**
 * What a store does once tables are written, before statements that join them are planned. PostgreSQL: autovacuum never
 * analyzes temp tables, and the tables written in this transaction (reference rows, tag sets) are not analyzed until it
 * ends, so every plan would assume a few hundred rows of unknown values (a check joined the whole journal with its
 * entries before dropping the few lines it looks for); ANALYZE samples them. DuckDB keeps its statistics as it writes.
 */
const ANALYZE: Record<Dialect, (s: SqlSession, tables: string) => Promise<void>> = {
  postgres: async (s, tables) => void (await s.query(`ANALYZE ${tables}`)),
  duckdb: async () => undefined,
};

/**
 * Reads the journal file with the engine, checks each row and types it (import_lines, import_line_keys, import_cells,
 * import_cell_options).
 */
async function readRows(s: SqlSession, journal: JournalFile, reader: JournalReader, step: StepReporter): Promise<void> {
  const { ordinal } = await reader.read(
    journal,
    (source, ord, reading) => importRowsSql(journal, reader.dialect, source, ord, reading),
    (fraction) => step('reading the file', fraction),
  );
  await ANALYZE[reader.dialect](s, 'import_rows');
  step('checking rows');
  await lineRows(s, ordinal);
  await s.query(LINE_KEYS_SQL);
  await s.query(CELLS_SQL(reader.dialect));
  await s.query(CELL_OPTIONS_SQL);
  await ANALYZE[reader.dialect](s, 'import_line_keys, import_cells, import_cell_options');
}

// ---------------------------------------------------------------- entries: the rows checked against each other and the
// store

/**
 * One entry per `ref`: its first CSV line, and the date, location, memo and posted flag of that line; whether its lines
 * hold more than one date, and the sum of their amounts. One window over the lines gives them all (a join of the
 * entries back to their first lines would hash one side whole, beyond a large import's memory).
 */
const ENTRIES_SQL = `CREATE TEMP TABLE import_entries AS
  SELECT ref, first_line, entry_date, location_id, memo, is_posted, dates_differ, total
    FROM (SELECT ref, line, entry_date, location_id, memo, is_posted, MIN(line) OVER e AS first_line,
                 MIN(entry_date) OVER e <> MAX(entry_date) OVER e AS dates_differ, SUM(amount_cents) OVER e AS total
            FROM import_lines WINDOW e AS (PARTITION BY ref)) w
   WHERE line = first_line`;

/**
 * A failed check: where the row-by-row validation met it (the entry's first line, then the step within the entry,
 * then the line, then the check within the line), so the first failure reported is the same as it was.
 */
interface Failure {
  order: [number, number, number, number];
  line: number;
  reason: string;
}

/** A set-based check over the staged import ($1 = the company): at most one row, its first failure. */
interface JournalCheck {
  /**
   * A small query that finds whether the check can fail at all (its ids against the catalog, once each): `sql`, which
   * finds the failure's earliest line among all the lines, runs only when it does.
   */
  guard?: string;
  sql: string;
  /** False for a check that does not depend on the company (its SQL has no $1). */
  byCompany?: false;
  failure(row: SqlRow, s: SqlSession, companyId: number): Promise<Failure>;
}

/** "(entry R, D" without its closing parenthesis: a line's name adds which of the entry's lines it is. */
const entryOpen = (row: SqlRow) => `(entry ${str(row.ref)}, ${str(row.entry_date)}`;
const entryName = (row: SqlRow) => `${entryOpen(row)})`;

/** "(entry R, D, its kth line)": k counts the entry's lines, as the row-by-row messages did. */
async function lineName(s: SqlSession, row: SqlRow): Promise<string> {
  const [k] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS k FROM import_lines WHERE ref = $1 AND line <= $2', [
    str(row.ref),
    int(row.line),
  ]);
  return `${entryOpen(row)}, its ${ordinal(Number(str(k?.k)))} line)`;
}

const LINE_OF_ENTRY = `SELECT l.line, l.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date`;

/** The guard of a catalog check: some distinct `column` of `table` is not among `known` ids. */
const unknownIds = (table: string, column: string, known: string) =>
  `SELECT 1 AS x FROM (SELECT DISTINCT ${column} AS id FROM ${table}) u WHERE u.id NOT IN (${known}) LIMIT 1`;
const KNOWN_LOCATIONS = 'SELECT id FROM locations WHERE company_id = $1';
const KNOWN_ACCOUNTS = 'SELECT id FROM accounts WHERE company_id = $1';
/** Options cells that name more than one option of a category, with the category. */
const SEVERAL_OF_A_CATEGORY = `SELECT o.options, t.category_id FROM import_cell_options o
  JOIN tracking_options t ON t.id = o.option_id GROUP BY o.options, t.category_id HAVING COUNT(*) > 1`;
const KNOWN_OPTIONS =
  'SELECT t.id FROM tracking_options t JOIN tracking_categories g ON g.id = t.category_id WHERE g.company_id = $1';

/** The first option of an options cell that is not one of the company's (the cell is known to have one), canonical. */
async function firstUnknownOption(s: SqlSession, cell: string, companyId: number): Promise<string> {
  const option = trim("split_part($2, ';', g.i)");
  const [r] = await s.query(
    `SELECT option_id FROM (SELECT ${canonical(option)} AS option_id, ${option} AS o, g.i FROM generate_series(1, $3) AS g(i)) x
    WHERE o <> '' AND option_id NOT IN (${KNOWN_OPTIONS}) ORDER BY i LIMIT 1`,
    [companyId, cell, cell.split(';').length],
  );
  return str(r?.option_id);
}

/** Entry-level and line-level checks, run after the rows are staged and the reference rows written. */
const JOURNAL_CHECKS: readonly JournalCheck[] = [
  {
    guard: unknownIds('import_entries', 'location_id', KNOWN_LOCATIONS),
    sql: `SELECT e.first_line AS line, e.ref, e.first_line, CAST(e.entry_date AS VARCHAR) AS entry_date, e.location_id FROM import_entries e
             LEFT JOIN locations o ON o.id = e.location_id AND o.company_id = $1 WHERE o.id IS NULL ORDER BY e.first_line LIMIT 1`,
    failure: async (r, _s, c) => ({
      order: [int(r.line), 0, 0, 0],
      line: int(r.line),
      reason: `${entryName(r)}: unknown location ${str(r.location_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_line_keys', 'account_id', KNOWN_ACCOUNTS),
    sql: `${LINE_OF_ENTRY}, l.account_id FROM import_entries e JOIN (SELECT l.line, l.ref, l.account_id FROM import_lines l
             LEFT JOIN accounts a ON a.id = l.account_id AND a.company_id = $1 WHERE a.id IS NULL) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 0],
      line: int(r.line),
      reason: `${await lineName(s, r)}: unknown account ${str(r.account_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_line_keys', 'location_id', KNOWN_LOCATIONS),
    sql: `${LINE_OF_ENTRY}, l.location_id FROM import_entries e JOIN (SELECT l.line, l.ref, l.location_id FROM import_lines l
             LEFT JOIN locations o ON o.id = l.location_id AND o.company_id = $1 WHERE o.id IS NULL) l
           ON e.ref = l.ref WHERE l.location_id <> e.location_id ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 1],
      line: int(r.line),
      reason: `${await lineName(s, r)}: unknown location ${str(r.location_id)} for company ${c}`,
    }),
  },
  {
    guard: unknownIds('import_cell_options', 'option_id', KNOWN_OPTIONS),
    sql: `${LINE_OF_ENTRY}, l.options FROM import_entries e JOIN (SELECT line, ref, options FROM import_lines
             WHERE options IN (SELECT options FROM import_cell_options WHERE option_id NOT IN (${KNOWN_OPTIONS}))) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    failure: async (r, s, c) => ({
      order: [int(r.first_line), 1, int(r.line), 2],
      line: int(r.line),
      reason: `${await lineName(s, r)}: unknown tracking option ${await firstUnknownOption(s, str(r.options), c)} for company ${c}`,
    }),
  },
  {
    guard: `SELECT 1 AS x FROM (${SEVERAL_OF_A_CATEGORY}) d LIMIT 1`,
    sql: `${LINE_OF_ENTRY}, l.category_id FROM import_entries e JOIN (SELECT l.line, l.ref, d.category_id FROM import_lines l
             JOIN (${SEVERAL_OF_A_CATEGORY}) d ON l.options = d.options) l
           ON e.ref = l.ref ORDER BY e.first_line, l.line LIMIT 1`,
    byCompany: false,
    failure: async (r, s) => ({
      order: [int(r.first_line), 1, int(r.line), 3],
      line: int(r.line),
      reason: `${await lineName(s, r)}: more than one option of tracking category ${str(r.category_id)}`,
    }),
  },
  {
    sql: `SELECT first_line AS line, ref, CAST(entry_date AS VARCHAR) AS entry_date, CAST(total AS VARCHAR) AS total
            FROM import_entries WHERE total <> 0 ORDER BY first_line LIMIT 1`,
    byCompany: false,
    failure: async (r) => ({
      order: [int(r.line), 2, 0, 0],
      line: int(r.line),
      reason: `${entryName(r)}: lines do not balance (they sum to ${str(r.total)} cents, expected 0)`,
    }),
  },
];

/** True when failure a was met before b (lexicographic order of their positions). */
function before(a: Failure, b: Failure): boolean {
  const i = a.order.findIndex((v, k) => v !== b.order[k]);
  return i >= 0 && a.order[i]! < b.order[i]!;
}

async function firstRow(s: SqlSession, sql: string, params: readonly SqlParam[]): Promise<SqlRow | undefined> {
  return (await s.query(sql, params))[0];
}

/** Every entry keeps one date: a later line with another date is refused (it was a parse error, reported first). */
async function checkEntryDates(s: SqlSession): Promise<void> {
  // Only the lines of entries of more than one date are compared with their first line's.
  if (!(await firstRow(s, 'SELECT 1 AS x FROM import_entries WHERE dates_differ LIMIT 1', []))) return;
  const r = await firstRow(
    s,
    `SELECT l.line, l.ref, CAST(l.entry_date AS VARCHAR) AS d, CAST(e.entry_date AS VARCHAR) AS first_date
      FROM import_lines l JOIN (SELECT ref, entry_date FROM import_entries WHERE dates_differ) e ON l.ref = e.ref
     WHERE l.entry_date <> e.entry_date ORDER BY l.line LIMIT 1`,
    [],
  );
  if (r)
    throw new JournalLineError(
      int(r.line),
      `entry ${str(r.ref)} has date ${str(r.d)} but its first line has ${str(r.first_date)}`,
    );
}

async function checkCompany(s: SqlSession, companyId: number): Promise<void> {
  if (await firstRow(s, 'SELECT 1 AS x FROM companies WHERE id = $1', [companyId])) return;
  const r = (await firstRow(
    s,
    `SELECT first_line AS line, ref, CAST(entry_date AS VARCHAR) AS entry_date FROM import_entries ORDER BY first_line LIMIT 1`,
    [],
  ))!;
  throw new JournalLineError(int(r.line), `${entryName(r)}: unknown company ${companyId}`);
}

async function checkEntries(s: SqlSession, companyId: number): Promise<void> {
  let first: Failure | undefined;
  for (const check of JOURNAL_CHECKS) {
    const params = check.byCompany === false ? [] : [companyId];
    if (check.guard !== undefined && !(await firstRow(s, check.guard, params))) continue;
    const row = await firstRow(s, check.sql, params);
    if (!row) continue;
    const failure = await check.failure(row, s, companyId);
    if (!first || before(failure, first)) first = failure;
  }
  if (first) throw new JournalLineError(first.line, first.reason);
}

/** Ids per pass of the re-import check: its aggregation over one pass's ids stays within DuckDB's import memory. */
const IDS_PER_PASS = 4_000_000;
/** A row's pass of `passes` (0 … passes - 1), by a hash of its entry id. */
const PASS_OF: Record<Dialect, (passes: number) => string> = {
  duckdb: (passes) => `hash(ref) % ${passes}`,
  postgres: (passes) => `(hashtext(ref) & 2147483647) % ${passes}`,
};

/**
 * Entry ids are kept per company: one already imported is refused at its first line, unless it is replaced. Found by
 * aggregation over both sets of ids rather than a join, which hashes one side whole (millions of ids once a large
 * journal is in): an id of both sets has a row of each, one with the journal's line. With many ids, in passes over
 * shares of them (by hash), so that each pass's aggregation stays small.
 */
async function checkReimports(s: SqlSession, dialect: Dialect, companyId: number, entries: number): Promise<void> {
  const [stored] = await s.query(
    'SELECT CAST(COUNT(*) AS VARCHAR) AS n FROM journal_entry_refs WHERE company_id = $1',
    [companyId],
  );
  const storedIds = int(stored?.n ?? '0');
  if (storedIds === 0) return; // the company's first import
  const passes = Math.max(1, Math.ceil((entries + storedIds) / IDS_PER_PASS));
  let first: SqlRow | undefined;
  for (let pass = 0; pass < passes; pass++) {
    const share = passes === 1 ? '' : ` AND ${PASS_OF[dialect](passes)} = ${pass}`;
    const r = await firstRow(
      s,
      `SELECT MIN(first_line) AS line, ref
        FROM (SELECT ref, first_line FROM import_entries WHERE true${share}
              UNION ALL SELECT ref, NULL FROM journal_entry_refs WHERE company_id = $1${share}) u
       GROUP BY ref HAVING COUNT(*) > COUNT(first_line) AND COUNT(first_line) > 0 ORDER BY line LIMIT 1`,
      [companyId],
    );
    if (r && (!first || int(r.line) < int(first.line))) first = r;
  }
  if (!first) return;
  // The entry is named from its line (a 10M-entry run in passes once named another entry than the line's).
  const [entry] = await s.query('SELECT ref FROM import_entries WHERE first_line = $1', [int(first.line)]);
  throw new JournalLineError(
    int(first.line),
    `entry ${str(entry?.ref ?? first.ref)} was already imported for company ${companyId} (an entry is never added twice)`,
  );
}

/**
 * New tag sets of the journal's lines, with their options (a tag key is its options, canonical and sorted, joined with
 * ',').
 */
async function registerTagSets(s: SqlSession, companyId: number): Promise<void> {
  const first = await nextId(s, 'tag_sets');
  await s.query(
    `INSERT INTO tag_sets (id, company_id, tag_key)
    SELECT CAST($2 AS BIGINT) - 1 + ROW_NUMBER() OVER (ORDER BY k.tag_key), CAST($1 AS INTEGER), k.tag_key FROM (SELECT DISTINCT tag_key FROM import_cells) k
     WHERE NOT EXISTS (SELECT 1 FROM tag_sets t WHERE t.company_id = $1 AND t.tag_key = k.tag_key)`,
    [companyId, first],
  );
  await s.query(
    `INSERT INTO tag_set_options (tag_set_id, option_id)
    SELECT id, option_id FROM (SELECT id, unnest(string_to_array(tag_key, ',')) AS option_id FROM tag_sets
                                WHERE company_id = $1 AND id >= $2 AND tag_key <> '') t`,
    [companyId, first],
  );
}

/**
 * Each line's tag set (its options cell, `l.options` → the cell's tag key → its id). DuckDB looks the cell up in a map
 * of the journal's cells to the company's tag sets held in a variable: with a join, its optimizer (which has no row
 * estimates for the tables an import makes in its transaction) may build the join's hash table on the 30M lines of a
 * large journal instead of the few cells, beyond the import's memory. PostgreSQL joins.
 */
const TAG_SET_OF: Record<
  Dialect,
  { prepare?: (companyId: number) => string; id: string; join: string; done?: string }
> = {
  duckdb: {
    prepare: (companyId) => `SET VARIABLE import_tag_sets = (SELECT map(list(c.options), list(t.id))
      FROM import_cells c JOIN tag_sets t ON t.tag_key = c.tag_key WHERE t.company_id = ${int(companyId)})`,
    id: "getvariable('import_tag_sets')[l.options]",
    join: '',
    done: 'RESET VARIABLE import_tag_sets',
  },
  postgres: {
    id: 't.id',
    join: 'JOIN (SELECT c.options, t.id FROM import_cells c JOIN tag_sets t ON t.company_id = $1 AND t.tag_key = c.tag_key) t ON t.options = l.options',
  },
};

/**
 * Each line (`l`) with its entry: the entry's first line and the posted flag of that line (every line of an entry has
 * its date, checked).
 */
const LINE_ENTRY: Record<Dialect, { lines: string; firstLine: string; posted: string }> = {
  // A window over the lines, not a join of every line to its entry: a large import's memory holds the one, not the
  // other. One aggregate gives both: the least line * 2 + posted is the first line's, its low bit the flag.
  duckdb: {
    lines: `(SELECT line, location_id, account_id, options, entry_date, amount_cents,
                   MIN(line * 2 + CASE WHEN is_posted THEN 1 ELSE 0 END) OVER (PARTITION BY ref) AS first
              FROM import_lines) l`,
    firstLine: '(l.first >> 1)',
    posted: '(l.first & 1) = 1',
  },
  // A hash join of the lines with their entries (import_entries has each entry's first line and flag): PostgreSQL
  // spills a hash that outgrows work_mem in batches, and it is cheaper than sorting every line by entry. The lines
  // (the probe side) come out in the file's order, the order of their ids (STAGED_IN_KEY_ORDER).
  postgres: {
    lines: 'import_lines l JOIN import_entries e ON e.ref = l.ref',
    firstLine: 'e.first_line',
    posted: 'e.is_posted',
  },
};

/** The staged tables an import writes in their target's key order (MoveForm.staged): moved without a sort. */
const STAGED_IN_KEY_ORDER: Record<Dialect, readonly StagedTable[]> = { postgres: ['stage_lines'], duckdb: [] };

/**
 * The checked journal as stage_* rows. Ids are the next free ids plus the CSV line (unique in one file; gaps do not
 * matter), so no row needs numbering.
 */
async function stageJournal(s: SqlSession, dialect: Dialect, companyId: number): Promise<void> {
  const tagSet = TAG_SET_OF[dialect];
  const entryBase = (await nextId(s, 'journal_entries')) - 1;
  const lineBase = (await nextId(s, 'journal_lines')) - 1;
  for (const ddl of STAGE_DDL) await s.query(ddl);
  await s.query(
    `INSERT INTO stage_entries (id, company_id, location_id, entry_date, memo, is_posted, ref)
    SELECT CAST($2 AS BIGINT) + first_line, CAST($1 AS INTEGER), location_id, entry_date, memo, is_posted, ref FROM import_entries`,
    [companyId, entryBase],
  );
  if (tagSet.prepare !== undefined) await s.query(tagSet.prepare(companyId));
  const entry = LINE_ENTRY[dialect];
  await s.query(
    `INSERT INTO stage_lines (id, entry_id, company_id, location_id, account_id, tag_set_id, entry_date, is_posted, amount_cents)
    SELECT CAST($3 AS BIGINT) + l.line, CAST($2 AS BIGINT) + ${entry.firstLine}, CAST($1 AS INTEGER), l.location_id, l.account_id, ${tagSet.id}, l.entry_date, ${entry.posted}, l.amount_cents
      FROM ${entry.lines} ${tagSet.join}`,
    [companyId, entryBase, lineBase],
  );
  if (tagSet.done !== undefined) await s.query(tagSet.done);
}

/** An account-month beyond 2^53 - 1 cents is refused at the journal's first posted line on that account and month. */
async function checkAccountMonths(s: SqlSession, companyId: number): Promise<void> {
  const over = await overfullAccountMonth(s, [companyId]);
  if (!over) return;
  const r = await firstRow(
    s,
    `SELECT l.line FROM import_entries e JOIN (SELECT line, ref FROM import_lines WHERE account_id = $1) l ON e.ref = l.ref
    WHERE e.is_posted AND CAST(e.entry_date AS VARCHAR) LIKE $2 ORDER BY e.first_line, l.line LIMIT 1`,
    [over.accountId, `${over.month}%`],
  );
  throw new JournalLineError(
    r ? int(r.line) : 2,
    `account ${over.accountId} would total more than 2^53 - 1 cents in ${over.month} (the largest amount a report can show exactly)`,
  );
}

const DROP_IMPORT = [
  'DROP TABLE import_entries',
  'DROP VIEW import_lines',
  'DROP TABLE import_rows',
  'DROP TABLE import_cell_options',
  'DROP TABLE import_cells',
  'DROP TABLE import_line_keys',
];

type StepReporter = (name: ImportProgress['name'], fraction?: number) => void;

function stepReporter(progress: JournalLoad['progress']): StepReporter {
  return (name, fraction = 0) => progress?.({ step: IMPORT_STEPS.indexOf(name), name, fraction });
}

export async function loadJournal(
  s: SqlSession,
  load: JournalLoad,
  read: JournalReader,
  recordChange?: ChangeRecorder,
): Promise<number> {
  const step = stepReporter(load.progress);
  step('reading the file');
  await readRows(s, load.journal, read, step);
  const { companyId } = load;
  const { changed } = await writeBatchReferences(s, { ...load.references, entries: undefined }, recordChange, [
    companyId,
  ]);
  await s.query(ENTRIES_SQL);
  await ANALYZE[read.dialect](s, 'import_entries, locations, accounts, tracking_categories, tracking_options');
  const [count] = await s.query('SELECT CAST(COUNT(*) AS VARCHAR) AS n FROM import_entries');
  const entries = int(count?.n ?? '0');
  if (entries === 0) {
    for (const sql of DROP_IMPORT) await s.query(sql);
    await changed(false);
    return 0;
  }
  step('checking entries');
  await checkEntryDates(s);
  await checkCompany(s, companyId);
  await checkEntries(s, companyId);
  step('staging');
  await registerTagSets(s, companyId);
  await ANALYZE[read.dialect](s, 'tag_sets');
  await stageJournal(s, read.dialect, companyId);
  const replace = load.references.replaceEntries === true;
  if (!replace) await checkReimports(s, read.dialect, companyId, entries);
  step('writing the ledger');
  await moveStaged(
    s,
    { ...MOVE_FORM[read.dialect], staged: { inKeyOrder: STAGED_IN_KEY_ORDER[read.dialect] } },
    replace,
    () => checkAccountMonths(s, companyId),
    changed,
  );
  for (const sql of DROP_IMPORT) await s.query(sql);
  return entries;
}
