/** The TypeScript files under a folder, at any depth (absolute paths, sorted): what the architecture tests read. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => path.join(dir, name));
}
