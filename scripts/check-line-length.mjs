// `npm run lint`'s line check: no line of the code in src/, scripts/, test/ and packages/ longer than 120 characters
// (Biome wraps code but not strings, templates or comments). Generated code and test/tools are not ours to wrap.
// Plain JavaScript: it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const CODE = /\.(ts|mjs|cjs|js)$/;
const files = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'scripts', 'test', 'packages'],
  {
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((file) => CODE.test(file) && !file.startsWith('test/tools/') && !file.includes('/fixtures/'));

const long = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.length > MAX ? [`${file}:${i + 1}: ${line.length} characters`] : [])),
);
if (long.length) {
  console.error(`${long.length} lines over ${MAX} characters (wrap them; strings by concatenation):`);
  console.error(long.join('\n'));
  process.exit(1);
}
