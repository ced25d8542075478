/**
 * The migration tools (packages/migration-tools) are a package of their own: they use the service only through
 * src/tooling-exports.ts (their tests also through the shared helpers, test/support/ and scripts/lib/), import only
 * packages their package.json declares, and nothing of src/ imports them. Imports are read from the sources.
 */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TOOLS = 'packages/migration-tools';
const DECLARED_EXPORTS = 'src/tooling-exports.ts';
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? entry.name === 'node_modules'
        ? []
        : sourceFiles(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

/** A file's imports: repository-relative paths for relative imports, `package:<name>` otherwise. */
function importsOf(file: string): string[] {
  return [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2]!)
    .map((spec) =>
      spec.startsWith('.') ? path.join(path.dirname(file), spec) : `package:${spec.replace(/^node:/, '')}`,
    );
}

const packageName = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

describe('migration tools: a package that uses the service through declared exports', () => {
  const toolFiles = [...sourceFiles(`${TOOLS}/src`), ...sourceFiles(`${TOOLS}/scripts`)];
  const toolTests = sourceFiles(`${TOOLS}/test`);

  it('When the tools (src/, scripts/) are read, then outside the package they import the declared exports only', () => {
    expect(toolFiles.length).to.be.greaterThan(30);
    const outside = toolFiles.flatMap((file) =>
      importsOf(file)
        .filter((i) => !i.startsWith('package:') && !i.startsWith(`${TOOLS}/`) && i !== DECLARED_EXPORTS)
        .map((i) => `${file} → ${i}`),
    );
    expect(outside).to.deep.equal([]);
  });

  it("When the tools' tests are read, then outside the package they import the declared exports and helpers", () => {
    expect(toolTests.length).to.be.greaterThan(3);
    const outside = toolTests.flatMap((file) =>
      importsOf(file)
        .filter(
          (i) =>
            !i.startsWith('package:') &&
            !i.startsWith(`${TOOLS}/`) &&
            i !== DECLARED_EXPORTS &&
            !i.startsWith('test/support/') &&
            !i.startsWith('scripts/lib/'),
        )
        .map((i) => `${file} → ${i}`),
    );
    expect(outside).to.deep.equal([]);
  });

  it("When the tools' package imports are read, then each is a Node built-in or declared in its package.json", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, TOOLS, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ]);
    const builtins = new Set(builtinModules);
    const undeclared = [...toolFiles, ...toolTests].flatMap((file) =>
      importsOf(file)
        .filter((i) => i.startsWith('package:'))
        .map((i) => packageName(i.slice('package:'.length)))
        .filter((name) => !builtins.has(name) && !declared.has(name) && !declared.has(`@types/${name}`))
        .map((name) => `${file} → ${name}`),
    );
    expect(undeclared).to.deep.equal([]);
  });

  it('When src/ is read, then nothing in it imports the tools', () => {
    const intoTools = sourceFiles('src').flatMap((file) =>
      importsOf(file)
        .filter((i) => i.startsWith('packages/'))
        .map((i) => `${file} → ${i}`),
    );
    expect(intoTools).to.deep.equal([]);
  });
});
