/** Small modules with one concern (the README's layout section): no source file of src/ runs over 400 lines. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';
import { tsFilesUnder } from '../../support/ts-files.ts';

const MAX_LINES = 400;

describe('module size', () => {
  it(`When src/ is read, then no file runs over ${MAX_LINES} lines (split a longer one by concern)`, () => {
    const files = tsFilesUnder(path.join(REPO_ROOT, 'src'));
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
