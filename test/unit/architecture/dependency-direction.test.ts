/**
 * One direction of dependencies in src/ (the README's layout section): the pure engine and the formats know nothing
 * of HTTP, the wire pipeline knows nothing of reports or services (src/app.ts wires them), scalars import nothing,
 * and no module imports itself through others. Imports are read from the sources (type-only imports count too).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsFilesUnder } from '../../support/ts-files.ts';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** src-relative file → its imports (src-relative files for relative imports, package names otherwise). */
const graph = new Map(
  tsFilesUnder(SRC).map((file) => {
    const imports = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((m) => m[1] ?? m[2]!)
      .map((spec) =>
        spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(file), spec)) : `package:${spec}`,
      );
    return [path.relative(SRC, file), imports] as const;
  }),
);

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : file);

function importsFrom(folder: string, forbidden: string[]): string[] {
  return [...graph].flatMap(([file, imports]) =>
    folderOf(file) === folder
      ? imports.filter((i) => forbidden.includes(folderOf(i))).map((i) => `${file} → ${i}`)
      : [],
  );
}

describe('dependency direction in src/', () => {
  it('When the sources are read, then every import resolves to a file of src/ or a package', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((i) => !i.startsWith('package:') && !i.startsWith('../') && !graph.has(i))
        .map((i) => `${file} → ${i}`),
    );
    expect(graph.size).to.be.greaterThan(50);
    expect(missing).to.deep.equal([]);
  });

  it('When scalars/ is read, then it imports nothing at all', () => {
    expect(
      [...graph].filter(([file, imports]) => folderOf(file) === 'scalars' && imports.length > 0).map(([file]) => file),
    ).to.deep.equal([]);
  });

  it(
    'When reports/ (the pure engine) and formats/ are read, then they import nothing from http/, services/, soap/ ' +
      'or app.ts',
    () => {
      expect(importsFrom('reports', ['http', 'services', 'soap', 'formats', 'auth', 'app.ts'])).to.deep.equal([]);
      expect(importsFrom('formats', ['http', 'services', 'soap', 'app.ts'])).to.deep.equal([]);
    },
  );

  it('When http/ is read, then it imports neither reports/ nor services/', () => {
    expect(importsFrom('http', ['reports', 'services', 'app.ts'])).to.deep.equal([]);
  });

  it(
    'When config.ts and ops/ are read, then they import nothing from http/ or soap/ (src/app.ts passes what they ' +
      'need)',
    () => {
      expect(importsFrom('config.ts', ['http', 'soap', 'services', 'reports'])).to.deep.equal([]);
      expect(importsFrom('ops', ['http', 'soap'])).to.deep.equal([]);
    },
  );

  it('When the import graph is walked, then no module reaches itself (no import cycle)', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).to.deep.equal([]);
  });
});
