/**
 * Every command-line tool fails as a user reads it: one sentence naming the cause and the fix, a non-zero exit code,
 * no stack trace (unless DEBUG=1). Each case runs the real command (the file `npm run import|keys|conformance|compare`
 * runs with tsx in the repository, read from package.json) as a child process.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const SCRIPTS = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

function tool(name: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  // `tsx <file>.ts`, or the form that runs dist/ where the sources are absent: `... exec tsx <file>.ts ...`.
  const file = /(?:^|exec )tsx (\S+\.ts)\b/.exec(SCRIPTS[name] ?? '')?.[1];
  if (!file) throw new Error(`npm run ${name} does not run 'tsx <file>.ts': ${SCRIPTS[name]}`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', file, ...args],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: '', DEBUG: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** The message a user reads: one line on stderr, nothing that looks like a stack. */
function expectOneSentence(outcome: Outcome, exitCode: number, pattern: RegExp): void {
  expect(outcome.code, outcome.stderr).to.equal(exitCode);
  const lines = outcome.stderr.trim().split('\n');
  expect(lines, outcome.stderr).to.have.length(1);
  expect(lines[0]).to.match(pattern);
  expect(outcome.stderr).not.to.match(/^\s+at |node:internal|Error:/m);
}

describe('command-line failures: one sentence, a non-zero exit, no stack', function () {
  this.timeout(120_000);
  let dir: string;
  const data = () => join(dir, 'data');
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-failures-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'When npm run import names a file that does not exist, then it says so, exits 1 and creates no ' + 'store',
    async () => {
      const outcome = await tool('import', [join(dir, 'nope.csv')], { DATA_DIR: data() });
      expectOneSentence(outcome, 1, /nope\.csv does not exist: check the path/);
      expect(existsSync(data()), 'DATA_DIR created').to.equal(false);
    },
  );

  it('When npm run import names a missing reference file, then it says which and exits 1', async () => {
    writeFileSync(join(dir, 'journal.csv'), 'entry,date,location,account,amount\n');
    const outcome = await tool('import', [join(dir, 'journal.csv'), '--reference', join(dir, 'ref.csv')], {
      DATA_DIR: data(),
    });
    expectOneSentence(outcome, 1, /ref\.csv does not exist: check the path/);
  });

  it('When npm run import is given bad arguments, then it names the argument and the usage, exit 2', async () => {
    expectOneSentence(
      await tool('import', [], { DATA_DIR: data() }),
      2,
      /^name one journal file \(0 given\); usage: npm run import -- <file\.csv>/,
    );
    expectOneSentence(
      await tool('import', ['x.csv', '--company', 'abc'], { DATA_DIR: data() }),
      2,
      /^--company must be a positive integer, got "abc"; usage:/,
    );
    expectOneSentence(
      await tool('import', ['x.csv', '--bogus'], { DATA_DIR: data() }),
      2,
      /Unknown option '--bogus'.*; usage:/,
    );
  });

  it('When DEBUG=1, then the same sentence is followed by the stack', async () => {
    const outcome = await tool('import', [join(dir, 'nope.csv')], { DATA_DIR: data(), DEBUG: '1' });
    expect(outcome.code).to.equal(1);
    expect(outcome.stderr).to.match(/^.*nope\.csv does not exist: check the path.*\n.*Error: ENOENT/);
    expect(outcome.stderr).to.match(/^\s+at /m);
  });

  it(
    'When npm run keys is given no command, an unknown one, or a bad --company, then one sentence and exit ' + '2',
    async () => {
      expectOneSentence(
        await tool('keys', [], { DATA_DIR: data() }),
        2,
        /^name a command \(create, revoke or list\); usage: npm run keys --/,
      );
      expectOneSentence(await tool('keys', ['rotate'], { DATA_DIR: data() }), 2, /^unknown command 'rotate'; usage:/);
      expectOneSentence(
        await tool('keys', ['create', '--company', 'x'], { DATA_DIR: data() }),
        2,
        /^create needs --company <id> \(positive integers\); usage:/,
      );
    },
  );

  it('When npm run keys names a company the store does not have, then it says how to add one, exit 1', async () => {
    expectOneSentence(
      await tool('keys', ['create', '--company', '7'], { DATA_DIR: data() }),
      1,
      new RegExp(
        String.raw`^No company 7 in the store: import its ledger first \(npm run import -- journal\.csv ` +
          String.raw`--reference reference\.csv\)(; the store has no company yet|, or name one of \d+(, \d+)*)\.$`,
      ),
    );
  });

  it('When DATA_DIR cannot be a directory, then npm run keys names it and what to do', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    expectOneSentence(
      await tool('keys', ['list'], { DATA_DIR: join(dir, 'a-file', 'data') }),
      1,
      /a-file\/data cannot be reached: a part of it is a file, not a directory; choose another path \(DATA_DIR/,
    );
  });

  it(
    'When npm run conformance is pointed at a port nothing listens on, then it says so instead of failing every ' +
      'rule',
    async () => {
      const outcome = await tool('conformance', ['http://127.0.0.1:9']);
      expectOneSentence(
        outcome,
        1,
        /^Nothing answers at http:\/\/127\.0\.0\.1:9 \(.+\): start the service \(npm start\) or check the URL\.$/,
      );
      expect(outcome.stdout).to.equal('');
    },
  );

  it('When npm run conformance gets no URL or a bad --timeout, then one sentence and exit 2', async () => {
    expectOneSentence(
      await tool('conformance', []),
      2,
      /^name the deployment's base URL \(http:\/\/ or https:\/\/\); usage:/,
    );
    expectOneSentence(
      await tool('conformance', ['http://127.0.0.1:9', '--timeout', 'soon']),
      2,
      /^--timeout must be a positive number, got 'soon'/,
    );
  });

  it('When npm run compare gets a bad argument, then one sentence pointing at --help, exit 2', async () => {
    expectOneSentence(
      await tool('compare', ['--old', 'old-host']),
      2,
      /^--old must be an http\(s\) URL, got 'old-host' \(npm run compare -- --help lists the options\)$/,
    );
    expectOneSentence(
      await tool('compare', ['--old', 'http://a']),
      2,
      /^--old and --new are required \(npm run compare -- --help/,
    );
    expectOneSentence(
      await tool('compare', ['--old', 'http://a', '--new', 'http://b', '--rps', '0']),
      2,
      /^--rps must be a positive number, got '0'/,
    );
    expectOneSentence(
      await tool('compare', ['--frobnicate']),
      2,
      /^Unknown option '--frobnicate'.*\(npm run compare -- --help/,
    );
  });
});
