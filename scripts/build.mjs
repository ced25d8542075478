// `npm run build`: the production build in dist/. tsc (tsconfig.build.json: .ts imports rewritten to .js,
// declarations) mirrors the repository (dist/src, dist/generated, dist/scripts for the CLIs); the contract files
// and the report page's assets are copied beside them, so the compiled modules find them at the same relative
// paths as the sources do. The server itself runs from an esbuild bundle, dist/src/bundle/main.js (entry
// `node dist/main.js`): loading ~1,000 separate modules (and Node's CommonJS export scan of each one an ES module
// imports) was the largest share of start-up. Packages that are native, load files of their own or are loaded on
// demand stay external and are imported from node_modules as before. Plain JavaScript, like ensure-node-modules.mjs:
// it needs nothing but the devDependencies typescript and esbuild.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
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
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', staging], { stdio: 'inherit' });
cpSync(path.join(root, 'openapi'), path.join(staging, 'openapi'), { recursive: true });
cpSync(path.join(root, 'wsdl'), path.join(staging, 'wsdl'), { recursive: true });
// The contract parsed once here, so the server reads JSON at start (src/contract/openapi-document.ts); refused if
// JSON cannot carry the document exactly.
const contract = parseYaml(readFileSync(path.join(root, 'openapi/reporting-service.yaml'), 'utf8'));
const contractJson = JSON.stringify(contract);
if (!isDeepStrictEqual(JSON.parse(contractJson), contract)) throw new Error('openapi/reporting-service.yaml does not survive a JSON round trip');
writeFileSync(path.join(staging, 'openapi/reporting-service.parsed.json'), contractJson);
copyNonTypeScript(path.join(root, 'src'), path.join(staging, 'src'));
// Two directories below dist/, like every compiled module under dist/src/<area>/, so the paths the modules resolve
// from import.meta.url (../../openapi, ../../wsdl, ../reports/assets) reach the same files.
const { build } = await import('esbuild');
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outdir: path.join(staging, 'src/bundle'),
  bundle: true,
  // What src/ imports on demand (a store adapter and its driver, exceljs) stays a separate chunk, loaded on demand.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Native (@duckdb), loaded on demand (pg, exceljs), asset packages resolved at run time (chart.js, swagger-ui-dist),
  // and jsonc-parser, whose UMD build requires its parts by computed relative paths.
  external: ['@duckdb/node-api', 'pg', 'exceljs', 'chart.js', 'swagger-ui-dist', 'jsonc-parser'],
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
writeFileSync(path.join(staging, 'main.js'), "// The production entry: `node dist/main.js` (see src/main.ts, bundled by scripts/build.mjs).\nimport './src/bundle/main.js';\n");
writeFileSync(path.join(staging, 'main.d.ts'), 'export {};\n');
// Swap in one step, so a server started from dist/ never sees half a build.
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.error('built dist/ (start: node dist/main.js)');
