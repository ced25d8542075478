/**
 * The config schema (src/config.ts) is the one list of settings: the README's configuration table names exactly
 * its variables with their defaults, and loadConfig reads each variable through the schema.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, configSchema, loadConfig } from '../../../src/config.ts';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../README.md');

/** `variable → default` as the README's "## Configuration" table shows them (`—` = no default). */
function readmeTable(): Map<string, string> {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## Configuration'));
  const rows = section
    .slice(0, section.indexOf('\n## '))
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  const table = new Map<string, string>();
  for (const row of rows) {
    const [names = '', defaults = ''] = row
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    const variables = [...names.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!);
    const shown = defaults.split(' / ').map((d) => d.trim().replace(/^`|`$/g, ''));
    variables.forEach((variable, i) => table.set(variable, shown[i] ?? shown[0]!));
  }
  return table;
}

function shownDefault(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

describe('config schema', () => {
  it(
    'When the README configuration table is read, then it lists exactly the schema variables with their ' + 'defaults',
    () => {
      const table = readmeTable();
      const schema = new Map(Object.values(configSchema).map((s) => [s.env, shownDefault(s.default)]));
      expect([...table.keys()].sort()).to.deep.equal([...schema.keys()].sort());
      for (const [variable, shown] of schema) expect(table.get(variable), variable).to.equal(shown);
    },
  );

  it('When no variable is set, then every key with a default takes it and the others stay unset', () => {
    const config = loadConfig({});
    expect(config).to.include({ ...configDefaults, dataDir: path.resolve(configDefaults.dataDir) });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.reportLinkSecret).to.equal(undefined);
  });

  it('When variables are set, then each is parsed by its schema entry, and a bad value names the variable', () => {
    const config = loadConfig({
      PORT: '9090',
      DEBUG: 'on',
      DEMO_DATA: 'false',
      DATABASE_URL: 'postgres://x',
      MAX_ARRAY_ITEMS: '5',
    });
    expect(config).to.include({
      port: 9090,
      debug: true,
      demoData: false,
      databaseUrl: 'postgres://x',
      maxArrayItems: 5,
    });
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(/PORT must be a non-negative integer/);
    expect(() => loadConfig({ DEBUG: 'maybe' })).to.throw(/DEBUG must be a boolean/);
  });
});
