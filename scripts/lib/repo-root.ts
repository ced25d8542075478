/** The repository's root folder, for tests that read its files or run its scripts. */
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
