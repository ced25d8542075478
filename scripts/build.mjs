// `npm run build`: the production build in dist/. tsc (tsconfig.build.json: .ts imports rewritten to .js,
// declarations) mirrors the repository (dist/src, dist/generated, dist/scripts for the CLIs); the contract files
// and the report page's assets are copied beside them, so the compiled modules find them at the same relative
// paths as the sources do. The server itself runs from an esbuild bundle, dist/src/bundle/main.cjs, with its V8 code
// cache beside it (entry `node dist/main.js`, src/production-entry.ts): loading ~1,000 separate modules (and Node's
// CommonJS export scan of each one an ES module imports), then compiling them, was the largest share of start-up.
// Packages that are native, load files of their own or are loaded on demand stay external and are required from
// node_modules. Plain JavaScript, like ensure-node-modules.mjs:
// it needs nothing but the devDependencies typescript and esbuild.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { loadOnFirstUse } from './esbuild-load-on-first-use.mjs';

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
// The WSDL with its schemas inlined and checked once here, so the server reads one file at start (src/soap/wsdl.ts).
const wsdl = await import(pathToFileURL(path.join(staging, 'src/soap/wsdl.js')).href);
writeFileSync(path.join(staging, 'wsdl', wsdl.INLINED_FILE), await wsdl.inlineWsdl(path.join(staging, 'wsdl')));
// The contract parsed once here, so the server reads JSON at start (src/contract/openapi-document.ts); refused if
// JSON cannot carry the document exactly.
const contract = parseYaml(readFileSync(path.join(root, 'openapi/reporting-service.yaml'), 'utf8'));
const contractJson = JSON.stringify(contract);
if (!isDeepStrictEqual(JSON.parse(contractJson), contract)) throw new Error('openapi/reporting-service.yaml does not survive a JSON round trip');
writeFileSync(path.join(staging, 'openapi/reporting-service.parsed.json'), contractJson);
copyNonTypeScript(path.join(root, 'src'), path.join(staging, 'src'));
// One script, two directories below dist/ like every compiled module under dist/src/<area>/, so the paths the modules
// resolve from import.meta.url (../../openapi, ../../wsdl, ../reports/assets) reach the same files. A CommonJS script,
// not an ES module: Node 20 can run a script from V8's code cache (src/production-entry.ts), not a module.
const { build } = await import('esbuild');
/** What both bundles are: one CommonJS script for Node 20 with its dependencies inside (see each for its externals). */
const SCRIPT_BUNDLE = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' };

const bundle = path.join(staging, 'src/bundle/main.cjs');
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: bundle,
  ...SCRIPT_BUNDLE,
  // Native (DuckDB's binding, which picks its platform's .node file; its JavaScript API is bundled), loaded on demand
  // (pg, exceljs), and asset packages resolved at run time (chart.js, swagger-ui-dist).
  external: ['@duckdb/node-bindings', 'pg', 'exceljs', 'chart.js', 'swagger-ui-dist'],
  // jsonc-parser's main build is UMD, which requires its parts by computed relative paths; its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // mime-types builds its extension maps from the whole of mime-db when required (~20 ms of the start, both copies);
  // only serving a file or a shorthand type (`res.type('json')`) looks one up.
  plugins: [loadOnFirstUse(['mime-types'])],
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  // No comments or indentation: 3.7 MB instead of 5.4, and no non-ASCII text in comments (see below). Names are kept.
  minifyWhitespace: true,
});
// An ASCII bundle is read as Latin-1 into a one-byte string in ~5 ms; any other character makes Node decode UTF-8 into
// a two-byte string (~35 ms at start-up). esbuild escapes non-ASCII in strings, not in tagged template literals.
const bundleText = readFileSync(bundle, 'latin1');
const nonAscii = /[^\x00-\x7f]/.exec(bundleText);
if (nonAscii) {
  const before = bundleText.slice(Math.max(0, nonAscii.index - 60), nonAscii.index);
  throw new Error(`the bundle has a non-ASCII character after: ${JSON.stringify(before)} (write it as an escape or an HTML entity in the source)`);
}
// The entry, `node dist/main.js`, is a CommonJS script too: Node starts an ES module entry through its module loader,
// ~20 ms more before any of our code runs. dist/ is a CommonJS package scope for it, and the folders tsc compiled stay
// ES modules, each with its own package.json saying so (Node reads the nearest one).
await build({
  entryPoints: [path.join(root, 'src/production-entry.ts')],
  outfile: path.join(staging, 'main.js'),
  ...SCRIPT_BUNDLE,
  // Resolved as from its compiled place, dist/src/production-entry.js, as the tsc output beside it would.
  define: { 'import.meta.url': '__entryUrl' },
  banner: { js: "// The production entry (src/production-entry.ts): runs the server bundle, dist/src/bundle/main.cjs.\nvar __entryUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, 'src/production-entry.js')).href;" },
});
writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const modules of ['src', 'generated', 'scripts']) writeFileSync(path.join(staging, modules, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(path.join(staging, 'main.d.ts'), 'export {};\n');
await writeCodeCache();

/**
 * Starts the staged build once, on a free port over an empty store in a scratch directory, and stops it once it
 * has started up and written its code cache (src/production-entry.ts), so the first start of a deployment has it too;
 * a bundle that cannot start fails the build.
 */
async function writeCodeCache() {
  const cache = `${bundle}.code-cache`;
  const scratch = mkdtempSync(path.join(tmpdir(), 'reporting-service-build-'));
  const child = spawn(process.execPath, [path.join(staging, 'main.js')], {
    // Only what this start needs: the builder's own settings (a DATABASE_URL, a BASE_PATH...) are not the server's.
    env: { PATH: process.env.PATH ?? '', DATA_DIR: scratch, PORT: '0', HOST: '127.0.0.1', DEMO_DATA: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let waited = 0; !existsSync(cache); waited += 50) {
      if (child.exitCode !== null || waited > 60_000) throw new Error(`the staged build did not write ${cache}: it ${child.exitCode !== null ? `exited ${child.exitCode}` : 'timed out'}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGTERM');
    await exited;
  } finally {
    child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
}

// Swap in one step, so a server started from dist/ never sees half a build.
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.error('built dist/ (start: node dist/main.js)');
