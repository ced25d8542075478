// Runs `npm ci` when a package folder's node_modules is missing or older than its package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone. The folder is the repository (what the server and the build
// need), or `test/tools` (test/tools/package.json: the tools only tests use, installed when those tests run).
// `--runtime` (npm start's): the production dependencies are enough (`npm ci --omit=dev`: the server, its Node and the
// build's esbuild, about two thirds of the bytes) where none are installed yet; a checkout with its devDependencies
// keeps them. Without it the devDependencies are installed too, also over a runtime install. Plain JavaScript: it
// runs before any dependency exists.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
const folder = path.resolve(root, process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '.');
// A checkout that has its devDependencies (typescript among them) keeps them when it is brought up to date.
const hasDev = existsSync(path.join(folder, 'node_modules/typescript'));
const runtime = process.argv.includes('--runtime') && !hasDev;
const installed = path.join(folder, 'node_modules/.package-lock.json');
const stale =
  !existsSync(installed) || statSync(installed).mtimeMs < statSync(path.join(folder, 'package-lock.json')).mtimeMs;
// A runtime install (npm start's) lacks the devDependencies, typescript among them.
const devMissing = folder === root && !process.argv.includes('--runtime') && !hasDev;
if (stale || devMissing) {
  const what =
    folder === root
      ? runtime
        ? 'the runtime dependencies'
        : 'dependencies'
      : `the tools of ${path.relative(root, folder)}/package.json`;
  const flags = `${folder === root ? '' : ` --prefix ${path.relative(root, folder)}`}${runtime ? ' --omit=dev' : ''}`;
  // npm may run on an older Node than the project's; the server and tools run on the Node 24 this install brings.
  const major = Number(process.versions.node.split('.')[0]);
  const nodeNote = major < 24 ? `; npm runs on Node ${process.version}, the service on the Node 24 it installs` : '';
  console.error(`Installing ${what} (npm ci${flags}${nodeNote})...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const started = performance.now();
  const args = ['ci', '--no-audit', '--no-fund', '--prefix', folder, ...(runtime ? ['--omit=dev'] : [])];
  execFileSync(npm, args, { stdio: 'inherit', cwd: root });
  console.error(`installed ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// The test tools' own packages (not what they depend on) are linked into test/node_modules, where Node and tsc look
// for a package a test file imports by name; a package the repository has itself (typescript, the generators' peer)
// is not, so every other package a test imports stays the server's copy.
if (folder !== root) {
  const readManifest = (dir) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const own = readManifest(root);
  const ours = new Set([...Object.keys(own.dependencies ?? {}), ...Object.keys(own.devDependencies ?? {})]);
  const links = path.join(path.dirname(folder), 'node_modules');
  for (const name of Object.keys(readManifest(folder).devDependencies ?? {}).filter((n) => !ours.has(n))) {
    const link = path.join(links, name);
    const target = path.relative(path.dirname(link), path.join(folder, 'node_modules', name));
    mkdirSync(path.dirname(link), { recursive: true });
    rmSync(link, { force: true, recursive: false });
    symlinkSync(target, link, 'dir');
  }
}
