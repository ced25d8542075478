/** DuckDB's settings while serving and while a journal is imported, and running work under settings. */
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * DuckDB's settings while a journal is imported (restored after it): with the process's own memory, the import stays
 * under 500 MB of RSS whatever the file's size. Its memory is capped (`memory_limit`, a file store only: ':memory:' has
 * no disk to spill to), so its import tables, sorts and joins spill to disk instead of growing with the file. Its
 * allocator gives freed memory back as it goes (a flush after each task past 8 MB, purged by background threads)
 * instead of keeping up to 128 MB per thread: about 60 MiB less peak RSS at 1M entries.
 */
const IMPORT_SETTINGS = {
  memory_limit: '128MB',
  allocator_flush_threshold: '8MB',
  allocator_background_threads: 'true',
} as const;
/** DuckDB's memory cap while serving (a file store; ':memory:' holds its data in it and has no cap). */
export const SERVING_MEMORY_LIMIT = '128MB';
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
