/** Small modules with one concern (the README's layout section): no source file of src/ runs over 400 lines. */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

const MAX_LINES = 400;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? tsFiles(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

describe('module size', () => {
  it(`When src/ is read, then no file runs over ${MAX_LINES} lines (split a longer one by concern)`, () => {
    const files = tsFiles(path.join(REPO_ROOT, 'src'));
    expect(files.length).to.be.above(100);
    const long = files
      .map((file) => ({
        file: path.relative(REPO_ROOT, file),
        lines: readFileSync(file, 'utf8').trimEnd().split('\n').length,
      }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).to.deep.equal([]);
  });
});
