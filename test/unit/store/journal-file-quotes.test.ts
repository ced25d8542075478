/**
 * The journal file's scan (store/import/journal-file.ts) reads quotes across its 1 MiB chunks: a doubled quote, a
 * closing quote or a misplaced one on a chunk's edge is told by the byte on the other side, and the quotes so told
 * decide whether an empty line in the next chunk is inside a quoted cell or between rows.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeJournalFile, readHead } from '../../../src/store/import/journal-file.ts';

const CHUNK = 1 << 20;
const HEADER = 'entry,date,location,account,amount,options,memo,posted\n';

/** A journal whose last row's memo cell is `before` + `after`, `after` starting the second chunk. */
function journalAcrossChunks(before: string, after: string): string {
  const filler = (i: number) => `F${i},2024-01-05,71,1000,0.00,,${'m'.repeat(900)},true\n`;
  let text = HEADER;
  for (let i = 0; text.length + filler(i).length < CHUNK - 2000; i++) text += filler(i);
  const start = 'X1,2024-01-05,71,1000,0.00,,';
  const pad = CHUNK - text.length - start.length - before.length;
  return `${text}${start}${before.replace('PAD', 'p'.repeat(pad + 3))}${after},true\n`;
}

describe('journal file scan: quotes on a chunk edge', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'journal-quotes-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const scan = async (text: string) => {
    const file = path.join(dir, 'journal.csv');
    writeFileSync(file, text);
    return describeJournalFile(file, await readHead(file)).then(
      (shape) => `quoted: ${shape.quoted}`,
      (err: Error) => err.message,
    );
  };

  it('When a doubled or a closing quote meets the edge, then the file is read as quoted, not refused', async () => {
    const doubled = journalAcrossChunks('"PAD"', '"q"');
    expect(doubled.indexOf('""', CHUNK - 10)).to.equal(CHUNK - 1);
    expect(await scan(doubled)).to.equal('quoted: true');
    const closing = journalAcrossChunks('"PAD"', '');
    expect(closing[CHUNK - 1]).to.equal('"');
    expect(closing[CHUNK]).to.equal(',');
    expect(await scan(closing)).to.equal('quoted: true');
  });

  it('When a quote is out of place across the edge, then it is refused at its line', async () => {
    const line = journalAcrossChunks('"PAD"', '').split('\n').length - 1;
    expect(await scan(journalAcrossChunks('"PAD"', 'x'))).to.match(
      new RegExp(`^line ${line}: malformed CSV: text after the closing quote of a quoted cell`),
    );
    expect(await scan(journalAcrossChunks('PAD', '"q'))).to.match(
      new RegExp(`^line ${line}: malformed CSV: a quote inside an unquoted cell`),
    );
  });

  it('When a quote pair meets the edge and an empty line follows in the cell, then it is read as quoted', async () => {
    const text = journalAcrossChunks('"PAD"', '"\n\nq"');
    expect(text.slice(CHUNK - 1, CHUNK + 3)).to.equal('""\n\n');
    expect(await scan(text)).to.equal('quoted: true');
  });

  it('When a closing quote meets the edge and an empty line follows it, then it is refused there', async () => {
    const text = journalAcrossChunks('"PAD"', ',true\n\nX2,2024-01-05,71,4000,0.00,,"m"');
    expect(text.slice(CHUNK - 1, CHUNK + 7)).to.equal('",true\n\n');
    const line = text.slice(0, CHUNK + 6).split('\n').length;
    expect(await scan(text)).to.match(new RegExp(`^line ${line}: malformed CSV: an empty line between rows`));
  });
});
