// Builds packages/client, the client-only npm package (`npm pack` there runs this first): the typed client of
// src/client and the DTO types of src/contract/dtos.ts compiled with what they import (generated/, src/scalars/) to
// JavaScript and declarations, and the contract files (openapi/, wsdl/) copied beside them. No server code comes
// along: the compiled files are checked to import nothing but each other and the package's own dependencies.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pkg = path.join(root, 'packages', 'client');
const require = createRequire(path.join(root, 'package.json'));

for (const dir of ['dist', 'openapi', 'wsdl']) rmSync(path.join(pkg, dir), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(pkg, 'tsconfig.json')], {
  stdio: 'inherit',
});
for (const dir of ['openapi', 'wsdl']) cpSync(path.join(root, dir), path.join(pkg, dir), { recursive: true });

// Every bare import of the compiled files is a declared dependency (relative ones stay inside dist/ by construction).
const { dependencies = {} } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? files(file) : [file];
  });
for (const file of files(path.join(pkg, 'dist')).filter((f) => /\.(js|d\.ts)$/.test(f))) {
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
    if (spec.startsWith('.')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!(name in dependencies))
      throw new Error(
        `${path.relative(root, file)} imports '${spec}', which packages/client/package.json does not depend on`,
      );
  }
}
console.error(`built ${path.relative(root, pkg)}: dist/, openapi/, wsdl/`);
