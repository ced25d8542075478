/**
 * Regenerates everything under generated/ from the hand-written contract.
 *   npm run generate            writes the files
 *   npm run generate -- --check exits 1 when a file in generated/ differs from what would be written
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generators } from './generators.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

let stale = 0;
for (const generator of generators) {
  const target = path.join(root, 'generated', generator.output);
  const content = await generator.render(root);
  const current = await readFile(target, 'utf8').catch(() => undefined);
  if (current === content) continue;
  if (check) {
    console.error(`generated/${generator.output} is stale: run npm run generate`);
    stale++;
  } else {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
    console.log(`wrote generated/${generator.output}`);
  }
}
if (stale) process.exit(1);
