/**
 * The production entry (`npm start`: `node dist/src/start.js`): turns on Node's module compile cache, then starts
 * the service (src/main.ts). The cache keeps V8's compiled code of every module between starts (in the OS temp
 * directory, or NODE_COMPILE_CACHE); Node checks it against each file's contents and ignores a stale or foreign one.
 */
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.ts');
