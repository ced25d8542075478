/**
 * What makes `npm run compare` see what a client sees (issue 24) and stay quiet about what no client notices
 * (issue 27): JSV as a tree, CSV read strictly, rules that match a field in any case convention, this service's own
 * volatile fields as built-in noise, a repeated difference summarised once, and an HTML report of bounded size.
 * Bodies here are written by the service's own writers (src/formats/) and by csv-stringify, as the hosts write them.
 */
import { expect } from 'chai';
import { stringify } from 'csv-stringify/sync';
import { compareBodies, comparerFor } from '../../src/compare/comparers/registry.ts';
import { renderHtmlReport } from '../../src/compare/html-report.ts';
import { BUILT_IN_NOISE, builtInNoise, maskVolatile } from '../../src/compare/noise.ts';
import { RuleMatcher, type Rules } from '../../src/compare/rules.ts';
import type { CompareReport } from '../../src/compare/run.ts';
import { formatSummary, summarise } from '../../src/compare/summary.ts';
import type { ExchangeRecord, FieldDiff } from '../../src/compare/types.ts';
import { applyJsConfig } from '../../../../src/tooling-exports.ts';
import { toJsv } from '../../../../src/tooling-exports.ts';
import { encodeReportToken, type ReportLinkPayload } from '../../../../src/tooling-exports.ts';

const diff = (mediaType: string, a: string, b: string) => compareBodies(comparerFor(mediaType, false), a, b);
const lines = (mediaType: string, a: string, b: string) =>
  diff(mediaType, a, b).diffs.map((d) => `${d.path} ${d.kind} ${JSON.stringify(d.old)} ${JSON.stringify(d.new)}`);

describe('compare: as a client reads it', () => {
  describe("JSV, parsed with the service's JSV reader and compared as a tree", () => {
    const dto = {
      Message: 'hello, world',
      CompanyName: 'Acme',
      ReportModel: { BuildTime: 3, Rows: [{ Name: 'Sales', Values: [1.5, 2] }] },
    };

    it('the same DTO written twice: equal, though not byte for byte when members are reordered', () => {
      const reordered = { CompanyName: 'Acme', ReportModel: dto.ReportModel, Message: 'hello, world' };
      expect(toJsv(dto)).not.to.equal(toJsv(reordered));
      const result = diff('application/jsv', toJsv(dto), toJsv(reordered));
      expect(result.comparer).to.equal('jsv');
      expect(result.diffs).to.deep.equal([]);
    });

    it('a changed member is one difference at its path, so rules and noise apply as in JSON', () => {
      const changed = { ...dto, ReportModel: { BuildTime: 9, Rows: [{ Name: 'Rent', Values: [1.5, 2] }] } };
      expect(lines('application/jsv', toJsv(dto), toJsv(changed))).to.deep.equal([
        '$.ReportModel.BuildTime changed "3" "9"',
        '$.ReportModel.Rows[0].Name changed "Sales" "Rent"',
      ]);
      const [buildTime] = diff('application/jsv', toJsv(dto), toJsv(changed)).diffs;
      expect(builtInNoise(buildTime!)).to.equal('BuildTime');
    });
  });

  describe('CSV, read strictly', () => {
    const header = ['Message', 'CompanyName'];
    // What a real ServiceStack 4.5 host writes (RFC 4180: a cell with a line break is quoted) ...
    const quoted = (message: string) =>
      stringify([header, [message, 'Acme']], { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
    // ... and what a writer that leaves the line break bare writes: the row splits for every CSV reader.
    const bare = (message: string) => `Message,CompanyName\r\n${message},Acme\r\n`;

    for (const [name, message] of [
      ['LF', 'line\nbreak'],
      ['CR', 'line\rbreak'],
      ['CRLF', 'line\r\nbreak'],
      ['formula after a LF', "x\n=cmd|' /C calc'!A0"],
    ] as const) {
      it(`an unquoted ${name} in a cell is a difference (the row splits), a quoted one is the cell`, () => {
        expect(lines('text/csv', quoted(message), quoted(message))).to.deep.equal([]);
        const result = diff('text/csv', quoted(message), bare(message));
        expect(result.diffs[0]).to.deep.include({ path: 'format()', kind: 'changed', old: 'valid csv' });
        expect(String(result.diffs[0]!.new)).to.match(
          /^not valid csv: Invalid Record Length: expect 2, got 1 on line \d/,
        );
        expect(result.diffs.length).to.be.greaterThan(1); // and the lines that differ
      });
    }

    it('a cell holding a nested DTO (written as JSV) is a tree: `$..BuildTime` reaches into it', () => {
      const csv = (buildTime: number) =>
        stringify([['ReportModel'], [toJsv({ BuildTime: buildTime, Title: 'P&L' })]], { record_delimiter: 'windows' });
      const result = diff('text/csv', csv(1), csv(2));
      expect(result.diffs.map((d) => d.path)).to.deep.equal(['$.rows[0].ReportModel.BuildTime']);
      const rules: Rules = { headers: [], ignore: [{ path: '$..BuildTime' }], tolerances: [] };
      expect(new RuleMatcher(rules, 'GET /x', [result.old!.tree, result.new!.tree]).allow(result.diffs[0]!)).to.equal(
        'ignore $..BuildTime',
      );
    });
  });

  describe('rules match a field whatever its case convention', () => {
    const dto = { CompanyName: 'Acme', ReportModel: { Rows: [{ AccountName: 'Sales', Url: 'u' }] } };
    for (const names of ['camelCase', 'lowercase_underscore'] as const) {
      it(`$..CompanyName and $.ReportModel.Rows[*].Url also match ?jsconfig's ${names} names`, () => {
        const a = applyJsConfig(dto, { names }) as Record<string, unknown>;
        const b = applyJsConfig(
          { CompanyName: 'Other', ReportModel: { Rows: [{ AccountName: 'Sales', Url: 'v' }] } },
          { names },
        );
        const result = diff('application/json', JSON.stringify(a), JSON.stringify(b));
        expect(result.diffs.map((d) => d.path)).to.deep.equal(
          names === 'camelCase'
            ? ['$.companyName', '$.reportModel.rows[0].url']
            : ['$.company_name', '$.report_model.rows[0].url'],
        );
        const rules: Rules = {
          headers: [],
          ignore: [{ path: '$..CompanyName' }, { path: '$.ReportModel.Rows[*].Url' }],
          tolerances: [],
        };
        const m = new RuleMatcher(rules, 'GET /x', [result.old!.tree, result.new!.tree]);
        expect(result.diffs.map((d) => m.allow(d))).to.deep.equal([
          'ignore $..CompanyName',
          'ignore $.ReportModel.Rows[*].Url',
        ]);
      });
    }

    it('and still only that field: $..CompanyName does not match CompanyId or Name', () => {
      const rules: Rules = { headers: [], ignore: [{ path: '$..CompanyName' }], tolerances: [] };
      const tree = { companyId: 1, name: 'x' };
      const m = new RuleMatcher(rules, 'GET /x', [tree, tree]);
      expect(m.allow({ path: '$.companyId', segments: ['$', 'companyId'], kind: 'changed', old: 1, new: 2 })).to.equal(
        undefined,
      );
      expect(m.allow({ path: '$.name', segments: ['$', 'name'], kind: 'changed', old: 'x', new: 'y' })).to.equal(
        undefined,
      );
    });
  });

  describe("built-in noise: this service's volatile fields", () => {
    const payload: ReportLinkPayload = {
      v: 1,
      c: 1,
      f: '2025-01-01',
      t: '2025-12-31',
      m: 0,
      x: 0,
      o: 'Default' as ReportLinkPayload['o'],
      l: [],
      g: [],
    };
    const link = (secret: string, p: ReportLinkPayload = payload) =>
      `{host}/v1/Reporting/ProfitAndLoss/Flat/Reports/${encodeReportToken(p, secret)}`;
    const changed = (path: string, old: unknown, neu: unknown, segments?: (string | number)[]): FieldDiff => ({
      path,
      kind: 'changed',
      old,
      new: neu,
      ...(segments ? { segments } : {}),
    });

    it('a report link signed with another secret is noise; a link to another report is not', () => {
      expect(builtInNoise(changed('$.Url', link('one'), link('two'), ['$', 'Url']))).to.equal('report link signature');
      expect(builtInNoise(changed('$.Url', link('one'), link('one', { ...payload, c: 2 }), ['$', 'Url']))).to.equal(
        undefined,
      );
    });

    it(
      'the link inside HTML snapshot text and beside BuildTime on one line: noise; any other change on the line ' +
        'is not',
      () => {
        const line = (secret: string, ms: number, name = 'Acme') =>
          `<dt>Url</dt><dd><a href="${link(secret)}.json">${link(secret)}</a></dd><dt>Build ` +
          `Time</dt><dd>${ms}</dd><dt>Company Name</dt><dd>${name}</dd>`;
        expect(builtInNoise(changed('$[12]', line('one', 1), line('two', 7), ['$', 12]))).to.equal(
          'report link signature, BuildTime',
        );
        expect(builtInNoise(changed('$[12]', line('one', 1), line('two', 7, 'Other'), ['$', 12]))).to.equal(undefined);
        expect(maskVolatile(line('one', 1))).to.equal(maskVolatile(line('two', 2)));
        // The page's JSON data source, HTML-escaped.
        expect(
          builtInNoise(changed('$[74]', '    &quot;BuildTime&quot;: 0,', '    &quot;BuildTime&quot;: 6,', ['$', 74])),
        ).to.equal('BuildTime');
        expect(
          builtInNoise(changed('$[74]', '    &quot;BuildTime&#39;: 0,', '    &quot;BuildTime&#39;: 6,', ['$', 74])),
        ).to.equal('BuildTime');
      },
    );

    it('BuildTime in any format and case convention, and the request id header', () => {
      expect(builtInNoise(changed('$.ReportModel.BuildTime', 1, 2, ['$', 'ReportModel', 'BuildTime']))).to.equal(
        'BuildTime',
      );
      expect(builtInNoise(changed('$.report_model.build_time', 1, 2, ['$', 'report_model', 'build_time']))).to.equal(
        'BuildTime',
      );
      expect(builtInNoise(changed('$.ReportModel.BuildTimes', 1, 2, ['$', 'ReportModel', 'BuildTimes']))).to.equal(
        undefined,
      );
      expect(builtInNoise(changed('header X-Request-Id', 'a', 'b'))).to.equal('request id');
      expect(builtInNoise(changed('header Vary', 'a', 'b'))).to.equal(undefined);
      expect(BUILT_IN_NOISE.map((f) => f.name)).to.deep.equal(['report link signature', 'BuildTime', 'request id']);
    });
  });

  describe('the report stays small and says a repeated difference once', () => {
    const ENDPOINTS = 40;
    const RULES_PER_ENDPOINT = 5;
    const REQUESTS_PER_RULE = 10;
    /**
     * 2,000 differing requests, each with a large body (about 15 KB, every line changed) and 50 differing fields: the
     * 18–84 MB case.
     */
    let built: CompareReport | undefined;
    function bigReport(): CompareReport {
      if (built) return built;
      const exchanges: ExchangeRecord[] = [];
      const body = (tag: string) =>
        JSON.stringify(
          Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`Field${i}`, `${tag}-${i}-${'x'.repeat(20)}`])),
          null,
          2,
        );
      for (let e = 0; e < ENDPOINTS; e++) {
        for (let r = 0; r < RULES_PER_ENDPOINT; r++) {
          for (let k = 0; k < REQUESTS_PER_RULE; k++) {
            const id = exchanges.length;
            exchanges.push({
              id,
              endpoint: `GET /endpoint/${e}`,
              outcome: 'different',
              request: {
                method: 'GET',
                url: `/endpoint/${e}?k=${k}`,
                origin: { source: 'battery', rule: `rule:${r}` },
              },
              old: { status: 200, contentType: 'application/json', ms: 1 },
              new: { status: 200, contentType: 'application/json', ms: 1 },
              differences: Array.from({ length: 50 }, (_, i) => ({
                path: `$.Field${i}`,
                segments: ['$', `Field${i}`],
                kind: 'changed' as const,
                old: 'old',
                new: 'new',
              })),
              noise: [{ path: '$.Url', kind: 'changed', old: 'a', new: 'b', why: 'built-in: report link signature' }],
              allowed: [],
              bodies: { old: body('old'), new: body('new') },
            });
          }
        }
      }
      return (built = {
        startedAt: '2026-01-01T00:00:00Z',
        finishedAt: '2026-01-01T00:01:00Z',
        hosts: { old: 'http://old', old2: 'http://old', new: 'http://new' },
        headers: ['Content-Type'],
        rules: [],
        sources: [],
        issues: [],
        summary: summarise(exchanges),
        exchanges,
      });
    }

    it(
      'HTML: the first 2 requests per endpoint and rule, at most 60, patches cut; the rest counted; under 3 ' + 'MB',
      () => {
        const report = bigReport();
        const page = renderHtmlReport(report);
        const sections = page.match(/<section class="exchange"/g) ?? [];
        expect(sections).to.have.length(60);
        expect(page).to.include('The first 60 of 2000 (at most 2 per endpoint and rule)');
        expect(page).to.match(/<code>GET \/endpoint\/0 · rule:0<\/code><\/td><td class="n">8<\/td>/);
        expect(page).to.include('the bodies differ in more than 400 lines: their first 60 lines are shown');
        expect(page).to.include('… 40 more fields differ');
        expect(Buffer.byteLength(page)).to.be.lessThan(3 * 1024 * 1024);
        // Every request still in the JSON report.
        expect(report.exchanges).to.have.length(ENDPOINTS * RULES_PER_ENDPOINT * REQUESTS_PER_RULE);
      },
    );

    it('terminal: each field once with its count, endpoints with their first fields, rules without', () => {
      const text = formatSummary(bigReport().summary);
      expect(text).to.include('differs  $.Field0  ×2000 in 40 endpoints  e.g. "old" → "new"');
      expect(text).to.include('noise    $.Url  ×2000 in 40 endpoints  built-in: report link signature');
      expect(text).to.include('… 30 more fields (JSON and HTML reports)');
      expect(text).to.include('By endpoint (40 with differences)');
      expect(text).to.include('  … 25 more with differences (JSON and HTML reports)');
      expect(text.split('\n').length).to.be.lessThan(120);
    });
  });
});
