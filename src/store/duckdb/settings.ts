/** DuckDB's settings while serving and while a journal is imported. */

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
