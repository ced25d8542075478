/**
 * Comments say why, not how fast (the team's guide): no comment of src/ quotes a measurement (a timing, a memory
 * figure, a before/after); those belong in docs/ or the README, next to the benchmark that gives them.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';
import { tsFilesUnder } from '../../support/ts-files.ts';

const UNIT = String.raw`\d[\d.,]*\s?(?:ms|µs|s|sec|seconds|minutes|KiB|MiB|GiB|kB|MB|GB)\b`;
/** The shapes of a measured figure: "about 60 MiB", "400 ms instead of 70 ms", "1.2 s of a 1M-entry import", … */
const MEASUREMENT = new RegExp(
  [
    String.raw`\babout ${UNIT}`,
    String.raw`${UNIT}\s(?:instead of|against|less|more|faster|slower)\b`,
    String.raw`\b(?:instead of|against)\s${UNIT}`,
    String.raw`${UNIT}\sof (?:an? \d|RSS)`,
    String.raw`\d+M[- ]entr(?:y|ies)\b[^.;]*?${UNIT}`,
    String.raw`\d[\d.]*\s?(?:x|×|times)\s(?:faster|slower|less|more)\b`,
  ].join('|'),
  'i',
);

/** Every comment of a TypeScript source (read by its parser: no `//` inside a string or template taken for one). */
function commentsOf(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, string>();
  const note = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    note(ts.getLeadingCommentRanges(text, node.getFullStart()));
    note(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  note(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].map((c) => c.replace(/^\s*(?:\/\/|\/\*+|\*\/?)/gm, ' ').replace(/\s+/g, ' '));
}

describe('comments hold no measurements', () => {
  it('When a comment quotes a figure measured, then the check finds it (and not a setting or a limit)', () => {
    const found = (comment: string) => commentsOf(comment).some((c) => MEASUREMENT.test(c));
    expect(found('/** Keeps freed memory:\n * about 60 MiB less peak RSS at 1M entries. */')).to.equal(true);
    expect(found('// an insert in key order\n// (1M entries, 12 s instead of 6 s)\nconst a = 1;')).to.equal(true);
    expect(found('/** the load is spared (1M rows: 1.2 s of a 1M-entry import) */')).to.equal(true);
    expect(found('/** a flush after each task past 8 MB, purged by threads, not up to 128 MB per thread */')).to.equal(
      false,
    );
    expect(found('const url = `http://x/ about 5 ms faster`;')).to.equal(false);
  });

  it('When src/ is read, then no comment quotes a measurement', () => {
    const files = tsFilesUnder(path.join(REPO_ROOT, 'src'));
    expect(files.length).to.be.above(100);
    const measured = files.flatMap((file) =>
      commentsOf(readFileSync(file, 'utf8'))
        .filter((c) => MEASUREMENT.test(c))
        .map((c) => `${path.relative(REPO_ROOT, file)}: ${MEASUREMENT.exec(c)?.[0]}`),
    );
    expect(measured).to.deep.equal([]);
  });
});
