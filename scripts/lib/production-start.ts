/**
 * The production start as `npm start` runs it (package.json's `start` script: `node <node options> dist/src/start.js`),
 * for what starts the production build the way users do (the benchmarks, the production tests).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './repo-root.ts';

const start = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const [command, ...args] = start.split(/\s+/);
if (command !== 'node' || args.at(-1) !== 'dist/src/start.js')
  throw new Error(`package.json's start script is not "node [options] dist/src/start.js": ${start}`);

/** The arguments `node` gets from `npm start`: its options, then the entry. */
export const PRODUCTION_NODE_ARGS: readonly string[] = args;
