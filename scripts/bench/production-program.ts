/**
 * A bench's child program run on the production modules, as `npm start` runs them: the program's TypeScript (and the
 * bench helpers it imports) compiled to one JavaScript file by esbuild, each import of the service's own modules
 * (src/, generated/) left an import of its compiled file in dist/, built first as npm start's prestart does.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { REPO_ROOT } from '../lib/repo-root.ts';
import { ensureProductionBuild } from '../lib/server-process.ts';

/** Where the compiled programs go: inside the repository, so that their package imports resolve from node_modules. */
const OUT_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'reporting-bench');
const SERVICE_DIRS = ['src', 'generated'].map((dir) => path.join(REPO_ROOT, dir) + path.sep);

/** Every import of a module of the service resolves to its compiled file in dist/ (never bundled from the source). */
const serviceFromDist: Plugin = {
  name: 'service-from-dist',
  setup(b) {
    b.onResolve({ filter: /\.ts$/ }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (!SERVICE_DIRS.some((dir) => file.startsWith(dir))) return undefined;
      const compiled = path.join(REPO_ROOT, 'dist', path.relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
      return { path: pathToFileURL(compiled).href, external: true };
    });
  },
};

/**
 * Compiles `module`'s export `main` into a program (`await main()` at its top level) and returns its path, after
 * building dist/ when it is missing or older than its sources.
 */
export async function productionProgram(module: string, main: string): Promise<string> {
  await ensureProductionBuild();
  mkdirSync(OUT_DIR, { recursive: true });
  const outfile = path.join(OUT_DIR, `${path.basename(module, '.ts')}.mjs`);
  await build({
    stdin: {
      contents: `import { ${main} } from ${JSON.stringify(module)};\nawait ${main}();\n`,
      resolveDir: REPO_ROOT,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    packages: 'external',
    plugins: [serviceFromDist],
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
  });
  return outfile;
}
