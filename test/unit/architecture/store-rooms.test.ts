/**
 * The store's rooms and their directions (README, layout): ledger/ (the interface) knows only the domain; batch/,
 * memory/ and import/ know the interface, not how a store is built; sql/ (the statements both adapters share) knows no
 * adapter; the adapters (duckdb/, postgres/) use the shared rooms, never each other; the report engine and the domain
 * know nothing of the store. Imports are read by TypeScript's parser, type-only imports included.
 */
import { expect } from 'chai';
import path from 'node:path';
import { moduleSpecifiers } from '../../support/module-specifiers.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';
import { tsFilesUnder } from '../../support/ts-files.ts';

const SRC = path.join(REPO_ROOT, 'src');

/** A file's room: `store/<room>` inside the store (`store` for its root files), else its folder of src/. */
function roomOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts[0] === 'store') return parts.length > 2 ? `store/${parts[1]}` : 'store';
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, '');
}

/** Every relative import of src/, as the rooms of the importing and the imported file. */
const edges = tsFilesUnder(SRC).flatMap((file) =>
  moduleSpecifiers(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => {
      const target = path.resolve(path.dirname(file), specifier);
      return {
        from: roomOf(file),
        to: roomOf(target),
        what: `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`,
      };
    })
    .filter((edge) => edge.from !== edge.to),
);

/** The imports out of `room` into a room not in `allowed`. */
const outside = (room: string, allowed: string[]) =>
  edges.filter((edge) => edge.from === room && !allowed.includes(edge.to)).map((edge) => edge.what);

const STORE_ROOMS = ['ledger', 'batch', 'sql', 'memory', 'import', 'duckdb', 'postgres'];

describe('the store in rooms', () => {
  it('When src/store/ is listed, then every file but the entry points lies in a room', () => {
    expect(edges.length).to.be.above(100);
    const rooms = new Set(tsFilesUnder(path.join(SRC, 'store')).map(roomOf));
    expect([...rooms].sort()).to.deep.equal(['store', ...STORE_ROOMS.map((room) => `store/${room}`)].sort());
    const root = tsFilesUnder(path.join(SRC, 'store'))
      .filter((file) => roomOf(file) === 'store')
      .map((file) => path.basename(file));
    expect(root.sort()).to.deep.equal(['demo-ledger.ts', 'open-store.ts']);
  });

  it('When reports/ and domain/ are read, then they import nothing of the store (domain/ only scalars/)', () => {
    expect(outside('reports', ['domain', 'scalars', 'contract', 'errors'])).to.deep.equal([]);
    expect(outside('domain', ['scalars'])).to.deep.equal([]);
  });

  it('When the interface (store/ledger/) is read, then it knows only the domain', () => {
    expect(outside('store/ledger', ['domain', 'scalars'])).to.deep.equal([]);
  });

  it(
    'When batch/, memory/ and import/ are read, then they know the interface and the domain, not how a store is ' +
      'built',
    () => {
      for (const room of ['store/batch', 'store/memory', 'store/import'])
        expect(outside(room, ['store/ledger', 'domain', 'scalars']), room).to.deep.equal([]);
    },
  );

  it('When the shared SQL (store/sql/) is read, then it knows no adapter', () => {
    expect(outside('store/sql', ['store/ledger', 'store/batch', 'domain', 'scalars'])).to.deep.equal([]);
  });

  it('When the adapters are read, then they use the shared rooms and never each other', () => {
    const shared = ['store/ledger', 'store/batch', 'store/sql', 'store/memory', 'domain', 'scalars'];
    expect(outside('store/duckdb', shared)).to.deep.equal([]);
    expect(outside('store/postgres', shared)).to.deep.equal([]);
  });

  it(
    'When the rest of src/ is read, then it reaches the store only through its interface, its import and its ' +
      'entry points',
    () => {
      const inside = edges.filter(
        (edge) =>
          !edge.from.startsWith('store') &&
          edge.to.startsWith('store/') &&
          !['store/ledger', 'store/import'].includes(edge.to),
      );
      expect(inside.map((edge) => edge.what)).to.deep.equal([]);
    },
  );
});
