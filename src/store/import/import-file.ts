/**
 * The files an import reads, taken as files: a regular file at the path as written (no FIFO, device, directory or
 * `/dev/fd` and `/proc` entry, which would block the reader forever, never end, or name the reading process's own
 * descriptors), opened without waiting (a FIFO's open would block) and checked on the open descriptor. The engine then
 * reads that descriptor through `/proc/self/fd/N`, so what it reads is what was checked and no character of the path
 * (DuckDB reads `[ ] * ?` in a path as a glob) changes which file it is.
 */
import { constants, existsSync } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';

export class ImportFileError extends Error {
  override readonly name = 'ImportFileError';
}

/** Where a process reads its own open descriptors by path (Linux). */
const OWN_DESCRIPTORS = '/proc/self/fd';
/** Paths of descriptors, devices and kernel files, never an import's file. */
const SYSTEM = /^\/(dev|proc|sys)\//;
/** Characters DuckDB's read_csv takes as a glob pattern. */
const GLOB = /[*?[\]{}]/;

export interface ImportFile {
  /** The path as given, for messages. */
  given: string;
  /** The path the engine reads: the open descriptor's, or the real path where descriptors have none. */
  path: string;
  close(): Promise<void>;
}

function kindOf(stat: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isDirectory(): boolean;
  isSocket(): boolean;
}): string {
  if (stat.isFIFO()) return 'a pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

const notAFile = (given: string, what: string) =>
  new ImportFileError(`${given} is ${what}: an import reads regular files only; save the data to a file first`);

/** Opens `given` for an import: a regular file, or an ImportFileError saying what it is instead. */
export async function openImportFile(given: string): Promise<ImportFile> {
  // `/dev/fd/63` (a shell's `<(...)`) names the reader's own descriptor 63, whatever the caller meant by it.
  if (SYSTEM.test(resolve(given))) throw notAFile(given, 'a system path (a descriptor, a device)');
  const real = await realpath(given);
  if (SYSTEM.test(real)) throw notAFile(given, `${real}, a system path`);
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw notAFile(given, 'a socket');
    throw error;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw notAFile(given, kindOf(stat));
  }
  const byDescriptor = `${OWN_DESCRIPTORS}/${handle.fd}`;
  const hasDescriptors = existsSync(byDescriptor);
  if (!hasDescriptors && GLOB.test(real)) {
    await handle.close();
    throw new ImportFileError(
      `${given}: a path with ${GLOB.exec(real)![0]} cannot be read literally here; rename the file`,
    );
  }
  return { given, path: hasDescriptors ? byDescriptor : real, close: () => handle.close() };
}

/** Runs `use` with the file open (an ImportFileError when `given` is not a regular file), then closes it. */
export async function withImportFile<T>(given: string, use: (file: ImportFile) => Promise<T>): Promise<T> {
  const file = await openImportFile(given);
  try {
    return await use(file);
  } finally {
    await file.close();
  }
}

/** A small text file of an import (the reference CSV), read off the event loop once it is known to be a file. */
export function readImportText(given: string): Promise<string> {
  return withImportFile(given, async (file) => {
    const handle = await open(file.path, constants.O_RDONLY);
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  });
}
