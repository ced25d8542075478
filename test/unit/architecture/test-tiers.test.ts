/**
 * The tests are tiered by folder (README, "Tests and benchmarks"): every test file lies in test/unit, test/wire or
 * test/system, so none is skipped by the fast tier's folder globs unseen; the fast tier (unit + wire) needs nothing
 * but `npm ci` (no package of test/tools, no external server, no production build); unit tests open no socket and
 * start no process. Imports are read by TypeScript's parser, following test/'s own modules.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { moduleSpecifiers, packageOf } from '../../support/module-specifiers.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

const TIERS = ['test/unit', 'test/wire', 'test/system'];
/** Test folders outside the tiers: the migration tools' own package (run by npm test, .mocharc.json). */
const OTHER_TEST_FOLDERS = ['packages/migration-tools/test'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'generated', '.git']);

function files(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : files(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

const relative = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join('/');
const isTest = (name: string) => /\.test\.[cm]?[jt]s$/.test(name);
const inFolder = (file: string, folder: string) => relative(file).startsWith(`${folder}/`);

/** A test file and the modules of test/ and scripts/lib/ it imports, transitively (src/ is not followed). */
function testClosure(file: string): string[] {
  const seen = new Set<string>();
  const visit = (current: string) => {
    if (seen.has(current)) return;
    seen.add(current);
    for (const specifier of moduleSpecifiers(current)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.resolve(path.dirname(current), specifier);
      if ((inFolder(target, 'test') || inFolder(target, 'scripts/lib')) && existsSync(target)) visit(target);
    }
  };
  visit(file);
  return [...seen];
}

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const INSTALLED_BY_NPM_CI = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
/** Helpers (test/support/, and scripts/lib/ the benchmarks share) that start or reach what only the system tier has. */
const SYSTEM_SUPPORT = [
  ...['test-tools.ts', 'https-client.ts', 'servicestack-dtos.ts'].map((name) => `test/support/${name}`),
  ...[
    'postgres-server.ts',
    'postgres-standby.ts',
    'pg-tools.ts',
    'nginx.ts',
    'hledger-journal.ts',
    'systemd-unit.ts',
  ].map((name) => `scripts/lib/${name}`),
];
/** An import of server-process.ts's production start (`node dist/src/start.js`, built first). */
const PRODUCTION_START = /import\s*\{[^}]*\b(?:startProductionServer|ensureProductionBuild)\b[^}]*\}\s*from/;
const SOCKETS_AND_PROCESSES = ['supertest', 'node:http', 'node:https', 'node:net', 'node:child_process', 'autocannon'];
const SOCKET_SUPPORT = ['test/support/listening.ts', 'scripts/lib/free-port.ts', 'scripts/lib/server-process.ts'];

const tierFiles = (tier: string) => files(path.join(REPO_ROOT, tier), isTest);

describe('test tiers by folder', () => {
  it('every test file lies in test/unit, test/wire or test/system (or the migration tools package)', () => {
    const everywhere = ['src', 'scripts', 'test', 'packages', 'deploy'].flatMap((folder) =>
      files(path.join(REPO_ROOT, folder), isTest),
    );
    expect(everywhere.length).to.be.above(50);
    const astray = everywhere
      .filter((file) => !inFolder(file, 'test/tools'))
      .filter((file) => ![...TIERS, ...OTHER_TEST_FOLDERS].some((folder) => inFolder(file, folder)))
      .map(relative);
    expect(
      astray,
      'move these into test/unit, test/wire or test/system (README, "Tests and benchmarks")',
    ).to.deep.equal([]);
  });

  it('the helpers the fast tiers may not reach are where this guard looks for them', () => {
    const missing = [...SYSTEM_SUPPORT, ...SOCKET_SUPPORT].filter((file) => !existsSync(path.join(REPO_ROOT, file)));
    expect(missing, 'a helper moved: update the lists of this test').to.deep.equal([]);
  });

  it('the fast tier is the unit and wire folders, by glob', () => {
    const fast = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fast.mocharc.json'), 'utf8')) as {
      spec: string[];
      ignore?: string[];
    };
    expect(fast.spec).to.deep.equal(['test/unit/**/*.test.ts', 'test/wire/**/*.test.ts']);
    expect(fast.ignore ?? []).to.deep.equal([]);
  });

  it('the whole suite (npm test) is the three tiers and the migration tools package, by glob', () => {
    const whole = JSON.parse(readFileSync(path.join(REPO_ROOT, '.mocharc.json'), 'utf8')) as { spec: string[] };
    expect(whole.spec).to.deep.equal([
      ...TIERS.map((tier) => `${tier}/**/*.test.ts`),
      ...OTHER_TEST_FOLDERS.map((folder) => `${folder}/**/*.test.ts`),
    ]);
  });

  it(
    'unit and wire tests need nothing but npm ci: no test/tools package, no external server, no production ' + 'build',
    () => {
      const problems: string[] = [];
      for (const test of [...tierFiles('test/unit'), ...tierFiles('test/wire')]) {
        for (const file of testClosure(test)) {
          const where = file === test ? relative(test) : `${relative(test)} through ${relative(file)}`;
          if (SYSTEM_SUPPORT.includes(relative(file))) problems.push(`${where}: a system-tier helper`);
          if (PRODUCTION_START.test(readFileSync(file, 'utf8'))) problems.push(`${where}: starts the production build`);
          for (const specifier of moduleSpecifiers(file)) {
            if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
            if (!INSTALLED_BY_NPM_CI.has(packageOf(specifier))) problems.push(`${where}: imports ${specifier}`);
          }
        }
      }
      expect(problems, 'these belong in test/system').to.deep.equal([]);
    },
  );

  it('unit tests open no socket and start no process (those are wire tests)', () => {
    const problems: string[] = [];
    for (const test of tierFiles('test/unit')) {
      for (const file of testClosure(test)) {
        const where = file === test ? relative(test) : `${relative(test)} through ${relative(file)}`;
        if (SOCKET_SUPPORT.includes(relative(file))) problems.push(`${where}: listens or starts a process`);
        for (const specifier of moduleSpecifiers(file))
          if (SOCKETS_AND_PROCESSES.includes(specifier)) problems.push(`${where}: imports ${specifier}`);
      }
    }
    expect(problems, 'these belong in test/wire').to.deep.equal([]);
  });
});
