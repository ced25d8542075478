// Runs `npm ci` when node_modules is missing or older than package-lock.json, so that `npm start` and
// `npm test` work on a fresh clone. Plain JavaScript: it runs before any dependency exists.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync('package-lock.json').mtimeMs) {
  console.error('Installing dependencies (npm ci)...');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
