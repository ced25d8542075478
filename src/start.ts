/**
 * The production entry (`npm start`: `node dist/src/start.js`): turns on Node's module compile cache, then starts
 * the service (src/main.ts). The cache keeps V8's compiled code of every module between starts, in a directory only
 * the service's user can write (src/ops/compile-cache.ts), or where NODE_COMPILE_CACHE says; without one, no cache.
 */
import module from 'node:module';
import { privateCompileCacheDirectory } from './ops/compile-cache.ts';

// A machine's own older node, run by hand, gets one sentence instead of a TypeError further down.
if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(
    `The Reporting Service needs Node.js 24 or later, and this is ${process.version}: start it with npm start, or ` +
      'node_modules/.bin/node dist/src/start.js (npm ci installs that Node).',
  );
  process.exit(1);
}
if (!process.env.NODE_COMPILE_CACHE) {
  const directory = privateCompileCacheDirectory();
  if (directory) module.enableCompileCache(directory);
  else process.emitWarning('no module compile cache: no directory only this user can write in the temp directory');
}
await import('./main.ts');
