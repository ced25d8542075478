/**
 * A journal import's rows: the engine reads the CSV file (the adapter's JournalReader) and shared SQL trims, checks and
 * types every row into import_rows, naming the first bad row's line with the message of scripts/import-format.md;
 * then each row's CSV line (import_lines) and the distinct options cells with their tag keys.
 */
import { cellCountReason, JournalLineError } from '../../ledger/errors.ts';
import { JOURNAL_COLUMNS, type JournalColumn, type JournalFile } from '../../ledger/writer.ts';
import type { ImportProgress } from '../../ledger/writer.ts';
import type { Dialect } from '../schema.ts';
import { type SqlSession, int, str } from '../session.ts';

// The SQL below is the same for DuckDB and PostgreSQL: anchored regular expressions (`~` is a full match in DuckDB,
// a search in PostgreSQL: the same when anchored), no casts of unchecked text.

// Each check has a fast path over the cell as read (one regular expression for the usual form) and the exact rule
// over the cell trimmed for the rest: the engines repeat an expression wherever a check refers to it, so the trimmed
// cell is only computed where it is needed. Casts accept the spaces around a value.
export const trim = (c: string) => `trim(${c})`;
/** A cell's value without the spaces around it, trimmed only when it has some. */
const trimmed = (c: string) => `(CASE WHEN ${c} LIKE ' %' OR ${c} LIKE '% ' THEN trim(${c}) ELSE ${c} END)`;
/** `fast OR slow`, with `slow` computed only where `fast` fails (a projection computes both sides of an OR). */
const orElse = (fast: string, slow: string) => `(CASE WHEN ${fast} THEN true ELSE ${slow} END)`;

/** A count of digits without leading zeros is a safe integer (at most 2^53 - 1). */
const safeDigits = (digits: string) =>
  `(length(ltrim(${digits}, '0')) < 16 OR (length(ltrim(${digits}, '0')) = 16 AND ltrim(${digits}, '0') <= ` +
  `'9007199254740991'))`;
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
export const canonical = (o: string) =>
  `CASE WHEN length(${o}) = 32 THEN lower(${o}) ELSE lower(regexp_replace(${o}, '[^0-9a-fA-F]', '', 'g')) END`;

const TRUE_WORDS = "('', '1', 'true', 'yes', 'on')";
const posted = (p: string) =>
  orElse(
    `${p} IN ('', 'true', 'false')`,
    `lower(${trim(p)}) IN ${TRUE_WORDS} OR lower(${trim(p)}) IN ('0', 'false', 'no', 'off')`,
  );
const isPosted = (p: string) =>
  `(CASE ${p} WHEN 'true' THEN true WHEN 'false' THEN false WHEN '' THEN true ELSE lower(${trim(p)}) ` +
  `IN ${TRUE_WORDS} END)`;

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
    usual:
      `amount_v BETWEEN -90071992547409.91 AND 90071992547409.91 AND scale(amount_v) <= 2 AND CAST(amount_v AS ` +
      `VARCHAR) = amount`,
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
    WHEN length(options) = 32 THEN CASE WHEN options = lower(options) AND CAST(options AS uuid) IS NOT NULL
      THEN true END
    WHEN length(options) = 65 AND substr(options, 33, 1) = ';' THEN CASE WHEN options = lower(options)
      AND CAST(substr(options, 1, 32) AS uuid) IS NOT NULL AND CAST(substr(options, 34, 32) AS uuid) IS NOT NULL
      THEN true END END`,
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
    list_filter(list_transform(string_split(options, ';'), lambda o: trim(o)), lambda o: o <> ''),
    lambda o: ${canonical('o')}))), ',') END`,
  postgres: `CASE WHEN options = '' THEN ''
    ELSE COALESCE((SELECT string_agg(DISTINCT ${canonical('o')} COLLATE "C", ',' ORDER BY ${canonical('o')} COLLATE "C")
    FROM (SELECT trim(x) AS o FROM unnest(string_to_array(options, ';')) AS x) u WHERE o <> ''), '') END`,
};

/**
 * A cast amount's cents; NULL for NaN and the infinities, which have none (their casts fail without SQLSTATE class 22).
 */
const AMOUNT_V_CENTS =
  'CASE WHEN amount_v BETWEEN -90071992547409.91 AND 90071992547409.91 THEN CAST(amount_v * 100 AS BIGINT) END';

/**
 * How importRowsSql reads the cells: `castFirst` (PostgreSQL's usual reading, see CAST_FIRST) may fail on a bad cell.
 * `padded`: the source has one column more than the header, and a missing cell is NULL (DuckDB's reading), so a row
 * with a cell in the extra column has more cells than the header, one whose last cell is NULL fewer; the other engine
 * refuses such a row as it reads it.
 */
export interface RowsReading {
  castFirst?: boolean;
  padded?: boolean;
}

const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** A row's problem of width, first of all its problems (NULL when it has the header's width). */
const widthProblem = (width: number) =>
  `CASE WHEN c${width} IS NOT NULL THEN ${sqlText(cellCountReason(true, width))} ` +
  `WHEN c${width - 1} IS NULL THEN ${sqlText(cellCountReason(false, width))} END`;
/** The rows refused for their width (the engine's CSV reading) come before those refused for a cell's value. */
const MALFORMED_FIRST = "CASE WHEN problem LIKE 'malformed CSV:%' THEN 0 ELSE 1 END";

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
  { castFirst = false, padded = false }: RowsReading = {},
): string {
  const raw = (c: JournalColumn) => (journal.columns[c] === undefined ? "''" : `COALESCE(c${journal.columns[c]}, '')`);
  const all = Array.from({ length: journal.width }, (_, i) => `COALESCE(c${i}, '')`);
  const breaks = journal.quoted ? all.map((c) => `length(${c}) - length(replace(${c}, chr(10), ''))`).join(' + ') : '0';
  const keep = ordinal ? `${ordinal}, ` : '';
  const line = ordinal ? `CAST(${lineOf(ordinal, journal.quoted)} AS BIGINT) AS line, ` : '';
  // PostgreSQL would pull the checks up into each place that refers to them (OFFSET 0 keeps them computed once).
  const fence = dialect === 'postgres' ? ' OFFSET 0' : '';
  const casts = Object.entries(CAST_FIRST.casts);
  const width = padded ? `, ${widthProblem(journal.width)} AS width_problem` : '';
  const cells =
    `SELECT ${keep}${JOURNAL_COLUMNS.map((c) => `${raw(c)} AS ${c}`).join(', ')}, ${breaks} AS breaks${width} ` +
    `FROM ${source}`;
  const typed = castFirst
    ? `SELECT *, ${casts.map(([c, type]) => `CAST(${c} AS ${type}) AS ${c}_v`).join(', ')}, ${CAST_FIRST.plainOptions}
      AS options_plain
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
    SELECT ${line}${trimmed('entry')} AS ref, ${checked(1, value('date'))} AS entry_date,
      ${checked(2, value('location'))} AS location_id,
           ${checked(3, value('account'))} AS account_id, ${checked(4, castFirst ? AMOUNT_V_CENTS : cents('amount'))}
             AS amount_cents,
           options, NULLIF(${trimmed('memo')}, '') AS memo, ${isPosted('posted')} AS is_posted,
           CASE ${padded ? 'WHEN width_problem IS NOT NULL THEN width_problem ' : ''}${ROW_CHECKS.map(
             (c, i) => `WHEN NOT ${checks[i]} THEN ${c.problem}`,
           ).join(' ')} END AS problem,
             CAST(breaks AS BIGINT) AS breaks
      FROM ${rows}`;
}

/**
 * A row's CSV line: its ordinal + 2 (the header is line 1), plus, when cells may hold line breaks, those of the rows
 * before it.
 */
function lineOf(ordinal: string, breaks: boolean): string {
  return breaks
    ? `${ordinal} + 2 + COALESCE(SUM(breaks) OVER (ORDER BY ${ordinal} ROWS BETWEEN UNBOUNDED PRECEDING ` +
        `AND 1 PRECEDING), 0)`
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
    `SELECT line, problem, options FROM import_lines WHERE problem IS NOT NULL ` +
      `ORDER BY ${MALFORMED_FIRST}, line LIMIT 1`,
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
  `CREATE TEMP TABLE import_cells AS SELECT options, ${TAG_KEY[dialect]} AS tag_key ` +
  `FROM (SELECT DISTINCT options FROM import_line_keys) c`;

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
export const ANALYZE: Record<Dialect, (s: SqlSession, tables: string) => Promise<void>> = {
  postgres: async (s, tables) => void (await s.query(`ANALYZE ${tables}`)),
  duckdb: async () => undefined,
};

/** Told each step of the import as it starts, and how far it is. */
export type StepReporter = (name: ImportProgress['name'], fraction?: number) => void;

/**
 * Reads the journal file with the engine, checks each row and types it (import_lines, import_line_keys, import_cells,
 * import_cell_options).
 */
export async function readRows(
  s: SqlSession,
  journal: JournalFile,
  reader: JournalReader,
  step: StepReporter,
): Promise<void> {
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
