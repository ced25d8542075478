/**
 * The production start as `npm start` runs it (package.json's `start` script: `[NAME=value ...] node <node options>
 * dist/src/start.js`, the variables set by npm's shell for the server alone), for what starts the production build
 * the way users do (the benchmarks, the production tests).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './repo-root.ts';

const start = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const words = start.split(/\s+/);
const assignments = words.slice(
  0,
  words.findIndex((word) => !/^[A-Z_][A-Z0-9_]*=\S+$/.test(word)),
);
const [command, ...args] = words.slice(assignments.length);
if (command !== 'node' || args.at(-1) !== 'dist/src/start.js')
  throw new Error(`package.json's start script is not "[NAME=value ...] node [options] dist/src/start.js": ${start}`);

/** The variables `npm start` sets for the server (the C allocator's settings, README "Memory"). */
export const PRODUCTION_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  assignments.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);

/** The arguments `node` gets from `npm start`: its options, then the entry. */
export const PRODUCTION_NODE_ARGS: readonly string[] = args;
