// `npm run build`: the production build in dist/, which `npm start` runs (`node dist/src/start.js`). esbuild compiles
// each module of tsconfig.build.json's `include` to one JavaScript file (relative `.ts` imports rewritten to `.js`),
// mirroring the repository (dist/src, dist/generated, dist/scripts for the CLIs); tsc adds the declarations unless
// `--no-declarations` (npm start's build: it runs the JavaScript only; type checking is `npm run typecheck`'s). The
// contract (with a JSON copy of it), the WSDL and the report page's assets are copied beside them, so the compiled
// modules find them at the same relative paths as the sources do. The modules are the ones the tests run, compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';

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

/** The TypeScript modules of tsconfig.build.json's `include` (directories walked, declaration files left out). */
function buildInputs() {
  const { include } = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8'));
  const walk = (file) =>
    statSync(file).isDirectory()
      ? readdirSync(file).flatMap((name) => walk(path.join(file, name)))
      : file.endsWith('.ts') && !file.endsWith('.d.ts')
        ? [file]
        : [];
  return include.flatMap((entry) => walk(path.join(root, entry)));
}

/** Every relative `.ts` import stays an import, of the compiled `.js` beside it (as tsc's rewriting of extensions). */
const relativeImports = {
  name: 'relative-imports',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) => ({
      path: args.path.replace(/\.ts$/, '.js'),
      external: true,
    }));
  },
};

rmSync(staging, { recursive: true, force: true });
const started = performance.now();
const { build } = await import('esbuild');
await build({
  entryPoints: buildInputs(),
  outdir: staging,
  outbase: root,
  bundle: true,
  packages: 'external',
  plugins: [relativeImports],
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: true,
  logLevel: 'warning',
});
if (!process.argv.includes('--no-declarations')) {
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      path.join(root, 'tsconfig.build.json'),
      '--outDir',
      staging,
      '--emitDeclarationOnly',
      '--noCheck',
    ],
    { stdio: 'inherit' },
  );
}
cpSync(path.join(root, 'openapi'), path.join(staging, 'openapi'), { recursive: true });
// The contract also as JSON, which the server reads at start instead of parsing the YAML (the source) each time.
const { parse } = await import('yaml');
const contract = path.join(root, 'openapi', 'reporting-service.yaml');
writeFileSync(
  path.join(staging, 'openapi', 'reporting-service.json'),
  JSON.stringify(parse(readFileSync(contract, 'utf8'))),
);
// And dereferenced, by the compiled module that dereferences it at start from the sources (json-schema-ref-parser), in
// V8's serialization, which keeps the objects the dereference shares shared: start-up reads it instead of loading the
// dereferencer and its YAML parser.
const { DEREFERENCED_PATH, openApiContract } = await import(
  pathToFileURL(path.join(staging, 'src', 'contract', 'openapi-document.js')).href
);
writeFileSync(DEREFERENCED_PATH, serialize(openApiContract().document));
cpSync(path.join(root, 'wsdl'), path.join(staging, 'wsdl'), { recursive: true });
copyNonTypeScript(path.join(root, 'src'), path.join(staging, 'src'));

// Swap in one step, so a server started from dist/ never sees half a build.
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.error(`built dist/ in ${seconds} s (start: npm start, or node_modules/.bin/node dist/src/start.js)`);
