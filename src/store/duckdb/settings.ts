/** DuckDB's settings while serving and while a journal is imported, and running work under settings. */
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * DuckDB's settings while a journal is imported (restored after it), so that the import's memory does not grow with
 * the file (README, "Import"). Its memory is capped (`memory_limit`, a file store only: ':memory:' has no disk to spill
 * to), so its import tables, sorts and joins spill to disk. Its allocator gives freed memory back as it goes, instead
 * of keeping up to 128 MB per thread: jemalloc's background threads purge freed pages after its decay (1 s in DuckDB
 * 1.5.5's build; with them on, DuckDB leaves its flush after a task past allocator_flush_threshold to them).
 */
const IMPORT_SETTINGS = {
  memory_limit: '128MB',
  allocator_flush_threshold: '8MB',
  allocator_background_threads: 'true',
} as const;
/** STORE_MEMORY_MB's default: DuckDB's memory cap while serving, in MiB. */
export const DEFAULT_STORE_MEMORY_MB = 64;

/**
 * DuckDB's settings while serving (docs/scaling.md, "Where the memory goes"). A file store's memory is capped
 * (`memory_limit`: the pages of the file it caches, which the OS caches too, and the state of queries, which spill to
 * `<file>.tmp` past it); ':memory:' holds its data in it and has no cap. Its allocator gives freed memory back as it
 * goes, as during an import.
 */
function servingSettings(path: string, memoryMb = DEFAULT_STORE_MEMORY_MB): Record<string, string> {
  const { memory_limit: _import, ...allocator } = IMPORT_SETTINGS;
  return path === ':memory:' ? allocator : { memory_limit: `${memoryMb}MiB`, ...allocator };
}

/**
 * Puts a store just opened at `path` under its serving settings. Returns a load's settings (API batches, the demo
 * ledger): DuckDB's default memory cap (80% of the machine's memory), which a load's staging needs; none in memory.
 */
export async function serveUnderSettings(
  writer: DuckDBConnection,
  path: string,
  memoryMb: number | undefined,
): Promise<Record<string, string> | undefined> {
  let loadSettings: Record<string, string> | undefined;
  if (path !== ':memory:') {
    const [row] = (
      await writer.runAndReadAll("SELECT CAST(current_setting('memory_limit') AS VARCHAR) AS m")
    ).getRowObjectsJS();
    loadSettings = { memory_limit: String(row!.m) };
  }
  for (const [name, value] of Object.entries(servingSettings(path, memoryMb)))
    await writer.run(`SET ${name} = ${settingLiteral(value)}`);
  return loadSettings;
}

/** DuckDB's own accounted memory (`duckdb_memory()`: its buffer pool, queries' state) and its memory_limit. */
export const ENGINE_MEMORY_SQL =
  'SELECT CAST(sum(memory_usage_bytes) AS DOUBLE) AS b, ' +
  "CAST(current_setting('memory_limit') AS VARCHAR) AS l FROM duckdb_memory()";
/** Settings an import may change as it goes (journalReader), restored after it with the others. */
export const IMPORT_CHANGES = ['preserve_insertion_order'] as const;

/** The import's settings for a store at `path`. */
export function importSettings(path: string): Record<string, string> {
  const { memory_limit: cap, ...allocator } = IMPORT_SETTINGS;
  return path === ':memory:' ? allocator : { memory_limit: cap, ...allocator };
}

export const settingLiteral = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;

/**
 * Runs `work` on `connection` under `settings`. An import may also drop insertion order once its rows are read
 * (journalReader): every setting changed, those and IMPORT_CHANGES, is restored after it.
 */
export async function underSettings<T>(
  connection: DuckDBConnection,
  settings: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  const changed = [...new Set([...Object.keys(settings), ...IMPORT_CHANGES])];
  const saved = (
    await connection.runAndReadAll(
      `SELECT ${changed.map((n) => `CAST(current_setting('${n}') AS VARCHAR) AS ${n}`).join(', ')}`,
    )
  ).getRowObjectsJS()[0];
  for (const [name, value] of Object.entries(settings)) await connection.run(`SET ${name} = ${settingLiteral(value)}`);
  try {
    return await work();
  } finally {
    for (const name of changed) await connection.run(`SET ${name} = ${settingLiteral(saved?.[name])}`);
  }
}
