// `npm run build`: the production build in dist/, which `npm start` runs (`node dist/src/start.js`). tsc
// (tsconfig.build.json: .ts imports rewritten to .js, declarations) mirrors the repository (dist/src, dist/generated,
// dist/scripts for the CLIs); the contract (with a JSON copy of it), the WSDL and the report page's assets are copied
// beside them, so the compiled modules find them at the same relative paths as the sources do. The modules are the
// ones the tests run, compiled; nothing else. Plain JavaScript, like ensure-node-modules.mjs: it needs nothing but
// typescript and yaml.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist');
const staging = path.join(root, '.dist-build');

/** Files under src/ that are not TypeScript (the report page's script and style) travel with the compiled code. */
function copyNonTypeScript(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyNonTypeScript(source, path.join(to, entry.name));
    else if (!entry.name.endsWith('.ts')) {
      mkdirSync(to, { recursive: true });
      cpSync(source, path.join(to, entry.name));
    }
  }
}

rmSync(staging, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', staging],
  { stdio: 'inherit' },
);
cpSync(path.join(root, 'openapi'), path.join(staging, 'openapi'), { recursive: true });
// The contract also as JSON, which the server reads at start instead of parsing the YAML (the source) each time.
const { parse } = await import('yaml');
const contract = path.join(root, 'openapi', 'reporting-service.yaml');
writeFileSync(
  path.join(staging, 'openapi', 'reporting-service.json'),
  JSON.stringify(parse(readFileSync(contract, 'utf8'))),
);
cpSync(path.join(root, 'wsdl'), path.join(staging, 'wsdl'), { recursive: true });
copyNonTypeScript(path.join(root, 'src'), path.join(staging, 'src'));

// Swap in one step, so a server started from dist/ never sees half a build.
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.error('built dist/ (start: node dist/src/start.js)');
