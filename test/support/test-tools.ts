/**
 * The tools only tests use (client generators, Prism, Redocly, playwright-core, the XSD validator, the ServiceStack
 * client) live in their own package folder, test/tools/package.json, installed into test/tools/node_modules by
 * `node scripts/ensure-node-modules.mjs test/tools` (which `npm test` and `npm run test:one` run first), not by
 * `npm start`. A test imports the few it loads by name (tsconfig.json's `paths` maps those names there, for tsc and
 * tsx alike), so every other package a test imports is still the server's own copy; commands and paths come from here.
 */
import path from 'node:path';

export const TEST_TOOLS = path.resolve(import.meta.dirname, '../tools/node_modules');

/** A test tool's command (node_modules/.bin). */
export const testToolBin = (name: string): string => path.join(TEST_TOOLS, '.bin', name);

/** A test tool's package folder. */
export const testToolPackage = (name: string): string => path.join(TEST_TOOLS, name);
