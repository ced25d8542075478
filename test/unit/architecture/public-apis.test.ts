/**
 * The service uses its libraries through their public APIs only (issue 22): every package a file of src/ (or a CLI
 * the build compiles) imports is imported by its name or by a subpath its package.json `exports` declares, never by
 * a path into its files (`express-openapi-validator/dist/...`); and nothing calls Express's undocumented internals
 * (`app.handle`, the router's stack, the request/response prototypes) or runs code through `node:vm`. Imports are
 * found by TypeScript's parser, type-only imports included.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { moduleSpecifiers, packageOf } from '../../support/module-specifiers.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';
import { tsFilesUnder } from '../../support/ts-files.ts';

const PRODUCTION_FILES = [
  ...tsFilesUnder(path.join(REPO_ROOT, 'src')),
  ...['cli', 'keys', 'import', 'conformance'].map((name) => path.join(REPO_ROOT, 'scripts', `${name}.ts`)),
];

/** Whether `subpath` (`./sync`) is a key of the package's `exports` map (patterns with `*` included). */
function exportsDeclare(packageName: string, subpath: string): boolean {
  const manifest = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'node_modules', packageName, 'package.json'), 'utf8'),
  ) as { exports?: unknown };
  const exports = manifest.exports;
  if (!exports || typeof exports !== 'object' || Array.isArray(exports)) return false;
  return Object.keys(exports).some(
    (key) => key === subpath || (key.includes('*') && subpath.startsWith(key.slice(0, key.indexOf('*')))),
  );
}

/** Express internals the previous request path used, and code run outside Node's module loader. */
const UNDOCUMENTED = [
  /\.handle\s*\(/,
  /\._router\b|\brouter\.stack\b/,
  /setPrototypeOf\s*\(\s*\w+\s*,\s*(?:app\.)?(?:request|response)\b/,
  /from 'node:vm'|require\('node:vm'\)|new vm\.Script/,
  /resolvedSchemaCache|requestValidationMiddleware|responseValidationMiddleware/,
];

describe('public APIs only', () => {
  it(
    'When src/ and the compiled CLIs are read, then each package is imported by its name or a subpath its exports ' +
      'declare',
    () => {
      const internal: string[] = [];
      let packages = 0;
      for (const file of PRODUCTION_FILES) {
        for (const specifier of moduleSpecifiers(file)) {
          if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
          packages++;
          const name = packageOf(specifier);
          const subpath = `.${specifier.slice(name.length)}`;
          if (subpath !== '.' && !exportsDeclare(name, subpath))
            internal.push(`${path.relative(REPO_ROOT, file)}: ${specifier}`);
        }
      }
      expect(packages, 'the scan finds package imports').to.be.greaterThan(30);
      expect(internal).to.deep.equal([]);
    },
  );

  it('When src/ is read, then no file calls an undocumented Express internal or runs code through node:vm', () => {
    const found = PRODUCTION_FILES.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return UNDOCUMENTED.filter((pattern) => pattern.test(text)).map(
        (pattern) => `${path.relative(REPO_ROOT, file)}: ${pattern}`,
      );
    });
    expect(found).to.deep.equal([]);
  });

  it('When a file imports a package internal, then the scan names it (the check can fail)', () => {
    expect(exportsDeclare('csv-parse', './sync')).to.equal(true);
    expect(exportsDeclare('express-openapi-validator', './dist/openapi.validator.js')).to.equal(false);
    expect(UNDOCUMENTED.some((pattern) => pattern.test('const handle = app.handle(req, res);'))).to.equal(true);
  });
});
