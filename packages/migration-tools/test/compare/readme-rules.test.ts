/**
 * The README's example rules (its rules file and `--ignore` of "Migrating clients") allow what they name wherever the
 * report sits in an answer: at the top (`$.ReportModel`), in a batch (`$[0].ReportModel`) or in a CSV row's cell. With
 * `$.ReportModel…` the nested ones were false differences (issue 38: 9 of them in a battery).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RuleMatcher, type Rules, type RulesFile } from '../../src/compare/rules.ts';
import type { FieldDiff } from '../../src/compare/types.ts';

const README = readFileSync(fileURLToPath(new URL('../../../../README.md', import.meta.url)), 'utf8');
const section = README.slice(README.indexOf('## Migrating clients'), README.indexOf('## Shadow traffic'));

/** The README's rules file and its `--ignore` examples, as the CLI reads them. */
function readmeRules(): Rules {
  const file = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as RulesFile;
  const ignores = [...section.matchAll(/--ignore '([^']+)'/g)].map((m) => m[1]!);
  expect(ignores, 'the walk-through has an --ignore example').not.to.deep.equal([]);
  return {
    headers: [],
    ignore: [...ignores, ...(file.ignore ?? [])].map((r) => (typeof r === 'string' ? { path: r } : r)),
    tolerances: file.tolerances ?? [],
  };
}

const report = (header: string, value: number) => ({
  ReportModel: { ReportHeader: header, Rows: [{ RowName: 'Sales', Values: [value, 2] }] },
});

/** Where the report sits in each answer shape, and the path prefix of its fields there. */
const SHAPES: [string, (r: object) => unknown, (string | number)[]][] = [
  ['a JSON answer', (r) => r, ['$']],
  ['a batch (/json/reply/GetFlatRequest[])', (r) => [r], ['$', 0]],
  ['a CSV row, the report in its cell', (r) => [{ Url: '{host}/x', ...r }], ['$', 0]],
];

describe("the README's example compare rules", () => {
  const rules = readmeRules();
  for (const [name, wrap, prefix] of SHAPES) {
    it(`allow the report header and a figure 0.004 apart in ${name}, not a figure 0.01 apart nor another field`, () => {
      const old = wrap(report('Profit and Loss', 100));
      const neu = wrap(report('P&L', 100.004));
      const matcher = new RuleMatcher(rules, 'GET /v1/Reporting/ProfitAndLoss/Flat', [old, neu]);
      const diff = (segments: (string | number)[], a: unknown, b: unknown): FieldDiff => ({
        path: segments.join('.'),
        segments: [...prefix, ...segments],
        kind: 'changed',
        old: a,
        new: b,
      });
      expect(matcher.allow(diff(['ReportModel', 'ReportHeader'], 'Profit and Loss', 'P&L'))).to.equal(
        'ignore $..ReportModel.ReportHeader',
      );
      expect(matcher.allow(diff(['ReportModel', 'Rows', 0, 'Values', 0], 100, 100.004))).to.equal(
        'tolerance $..ReportModel.Rows[*].Values[*] ±0.005',
      );
      expect(matcher.allow(diff(['ReportModel', 'Rows', 0, 'Values', 0], 100, 100.01))).to.equal(undefined);
      expect(matcher.allow(diff(['ReportModel', 'Rows', 0, 'RowName'], 'Sales', 'Revenue'))).to.equal(undefined);
    });
  }
});
