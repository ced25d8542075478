/**
 * The build's esbuild plugin (scripts/esbuild-load-on-first-use.mjs): a package bundled behind its stand-in answers as
 * the package does, and is not evaluated until it is first used.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type PluginBuild } from 'esbuild';
import { REPO_ROOT } from '../support/server-process.ts';
// @ts-expect-error: a plain JavaScript build script, without declarations
import { loadOnFirstUse } from '../../scripts/esbuild-load-on-first-use.mjs';

describe('build: a package loaded on first use (esbuild plugin)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rs-first-use-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('When mime-types is bundled behind its stand-in, then it is evaluated on its first use and answers as the package does', async () => {
    const entry = path.join(REPO_ROOT, 'test', `.first-use-entry-${process.pid}.cjs`);
    // Counts the modules the bundle evaluated; mime-db's JSON is what the stand-in defers.
    writeFileSync(entry, `
      const before = globalThis.__evaluated();
      const mime = require('mime-types');
      const afterRequire = globalThis.__evaluated();
      const answers = { lookup: mime.lookup('report.xlsx'), contentType: mime.contentType('json'), extension: mime.extension('text/csv'), charset: mime.charset('text/html'), types: mime.types.csv };
      module.exports = { before, afterRequire, afterUse: globalThis.__evaluated(), answers };
    `);
    const outfile = path.join(dir, 'bundle.cjs');
    try {
      await build({
        entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent',
        banner: { js: 'let __count = 0; globalThis.__evaluated = () => __count;' },
        plugins: [loadOnFirstUse(['mime-types']), {
          // mime-db's JSON, counted when it is evaluated.
          name: 'count-evaluations',
          setup(esbuild: PluginBuild) {
            esbuild.onLoad({ filter: /mime-db[\\/]db\.json$/ }, () => ({ contents: `__count++; module.exports = ${JSON.stringify(createRequire(entry)('mime-db'))};`, loader: 'js' }));
          },
        }],
      });
    } finally {
      rmSync(entry, { force: true });
    }
    type MimeTypes = Record<'lookup' | 'contentType' | 'extension' | 'charset', (value: string) => string | false> & { types: Record<string, string> };
    const real = createRequire(entry)('mime-types') as MimeTypes;
    const result = createRequire(outfile)(outfile) as { before: number; afterRequire: number; afterUse: number; answers: Record<string, unknown> };
    expect(result.before, 'mime-db evaluated before anything asked for it').to.equal(0);
    expect(result.afterRequire, 'mime-db evaluated by require() alone').to.equal(0);
    expect(result.afterUse, 'mime-db evaluated once it was used').to.equal(1);
    expect(result.answers).to.deep.equal({
      lookup: real.lookup('report.xlsx'), contentType: real.contentType('json'), extension: real.extension('text/csv'), charset: real.charset('text/html'), types: real.types.csv,
    });
  });
});
