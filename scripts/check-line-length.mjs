// `npm run lint`'s line check: no line of code in src/, scripts/, test/ and packages/ over 120 characters (Biome
// wraps code, not strings, templates or comments). Generated code and test/tools are not ours to wrap.
// Plain JavaScript: it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const MAX = 120;
const CODE = /\.(ts|mjs|cjs|js)$/;
const tracked = ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'scripts', 'test', 'packages'];
const files = execFileSync('git', tracked, { encoding: 'utf8' })
  .split('\n')
  .filter((file) => CODE.test(file) && existsSync(file))
  .filter((file) => !file.startsWith('test/tools/'));

const long = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.length > MAX ? [`${file}:${i + 1}: ${line.length} characters`] : [])),
);
if (long.length) {
  console.error(`Lines over ${MAX} characters (wrap them: strings by concatenation, SQL before a keyword):`);
  console.error(long.join('\n'));
  process.exit(1);
}
