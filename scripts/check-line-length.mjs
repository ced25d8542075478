// `npm run lint`'s line check: no line of code in src/, scripts/, test/ and packages/ over 120 characters (Biome
// wraps code, not strings, templates or comments). The files in check-line-length.baseline.json are the ones not yet
// wrapped: each may keep at most the lines it has there, never more. Generated code and test/tools are not ours.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const MAX = 120;
const CODE = /\.(ts|mjs|cjs|js)$/;
const baseline = JSON.parse(readFileSync(new URL('./check-line-length.baseline.json', import.meta.url), 'utf8'));
const files = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'scripts', 'test', 'packages'],
  {
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter(
    (file) => CODE.test(file) && existsSync(file) && !file.startsWith('test/tools/') && !file.includes('/fixtures/'),
  );

const problems = [];
let left = 0;
for (const file of files) {
  const long = readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.length > MAX ? [`${file}:${i + 1}: ${line.length} characters`] : []));
  left += Math.min(long.length, baseline[file] ?? 0);
  if (long.length > (baseline[file] ?? 0)) problems.push(...long);
}
if (problems.length) {
  console.error(`Lines over ${MAX} characters (wrap them: strings by concatenation, SQL at its keywords):`);
  console.error(problems.join('\n'));
  process.exit(1);
}
if (left) console.error(`${left} lines over ${MAX} characters left in check-line-length.baseline.json's files`);
