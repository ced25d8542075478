/**
 * The production process's entry (`node dist/main.js`): runs the server bundle (dist/src/bundle/main.cjs, src/main.ts
 * and its dependencies as one script, built by scripts/build.mjs) from V8's code cache.
 *
 * Node 22 has this built in (module.enableCompileCache); Node 20, the runtime, does not. Without a cache V8 parses the
 * whole bundle and then compiles each function on its first call, which was the largest part of start-up. The cache
 * is taken once the server listens and has answered its first warm-up request (src/main.ts calls signalStartedUp), so
 * it holds every function start-up and a first request compiled, not only the top level (1.9 MB; taken at listen, 1.8
 * MB and the first 200 ~10-25 ms later); not after the whole warm-up, since a larger cache takes longer to read than
 * the functions only other requests use take to compile (2.9 MB against 2.1, ~50 ms later). The build writes it
 * (dist/src/bundle/main.cjs.code-cache); V8 refuses a cache made by another V8 version or with other V8 flags, and the
 * process then compiles from source as before and writes a fresh cache for the next start where it may write.
 */
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { onStartedUp } from './started-up.ts';

const BUNDLE = fileURLToPath(new URL('./bundle/main.cjs', import.meta.url));
const CACHE = `${BUNDLE}.code-cache`;

function readCache(): Buffer | undefined {
  try {
    return readFileSync(CACHE);
  } catch {
    return undefined;
  }
}

/** Written beside the bundle in one rename, so a concurrent start never reads half a cache; a read-only dist/ keeps none. */
function writeCache(data: Buffer): void {
  const partial = `${CACHE}.${process.pid}`;
  try {
    writeFileSync(partial, data);
    renameSync(partial, CACHE);
  } catch {
    rmSync(partial, { force: true });
  }
}

/** The build keeps the bundle ASCII, which reads as Latin-1 into a one-byte string (~5 ms); UTF-8 decoding took ~35. */
function readBundle(): string {
  const bytes = readFileSync(BUNDLE);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

const cachedData = readCache();
// The CommonJS module wrapper, spelled out so the compiled script (and its cache) is the bundle's own.
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readBundle()}\n})`, {
  filename: BUNDLE,
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const cacheUsable = cachedData !== undefined && !script.cachedDataRejected;
onStartedUp(() => {
  if (!cacheUsable) writeCache(script.createCachedData());
});
const bundleModule = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)
  .call(bundleModule.exports, bundleModule.exports, createRequire(BUNDLE), bundleModule, BUNDLE, path.dirname(BUNDLE));
