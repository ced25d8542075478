/**
 * The production entry (`npm start`: `node dist/src/start.js`): turns on Node's module compile cache, then starts
 * the service (src/main.ts). The cache keeps V8's compiled code of every module between starts, in a directory only
 * the service's user can write (src/ops/compile-cache.ts), or where NODE_COMPILE_CACHE says; without one, no cache.
 */
import module from 'node:module';
import { privateCompileCacheDirectory } from './ops/compile-cache.ts';

if (!process.env.NODE_COMPILE_CACHE) {
  const directory = privateCompileCacheDirectory();
  if (directory) module.enableCompileCache(directory);
  else process.emitWarning('no module compile cache: no directory only this user can write in the temp directory');
}
await import('./main.ts');
