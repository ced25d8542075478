// Runs the production build (scripts/build.mjs --no-declarations: the JavaScript a start runs) when dist/ is missing
// or older than what it is built from, so that `npm start` works on a fresh clone and after a pull. On a production
// install without devDependencies (no esbuild) a stale dist/ is used as it is, with a warning; a missing one is an
// error. Under `npm start` it says so when it had work to do, and that the server starts next.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const entry = path.join(root, 'dist', 'src', 'start.js');
const INPUTS = [
  'src',
  'generated',
  'openapi',
  'wsdl',
  'scripts/build.mjs',
  'scripts/cli.ts',
  'scripts/keys.ts',
  'scripts/import.ts',
  'scripts/conformance.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

function newest(file) {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(file).reduce((max, name) => Math.max(max, newest(path.join(file, name))), stat.mtimeMs);
}

const builtAt = existsSync(entry) ? statSync(entry).mtimeMs : 0;
const sourcesAt = Math.max(...INPUTS.map((input) => newest(path.join(root, input))));
if (builtAt >= sourcesAt) process.exit(0);
if (!existsSync(path.join(root, 'node_modules', 'esbuild'))) {
  if (builtAt) {
    console.error(
      'warning: dist/ is older than the sources and esbuild is not installed (production install): starting ' +
        'the existing build',
    );
    process.exit(0);
  }
  console.error(
    'dist/ is missing and esbuild is not installed: run `npm run build` where devDependencies are installed',
  );
  process.exit(1);
}
console.error(builtAt ? 'Sources changed since the last build: building dist/...' : 'Building dist/ (first start)...');
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--no-declarations'], { stdio: 'inherit' });
if (process.env.npm_lifecycle_event === 'prestart') console.error('Starting the server (node dist/src/start.js)...');
