/**
 * The request sources on fixtures with bad lines (each reported with its line number and skipped), the built-in
 * battery generated from the contract, and the body comparers with the rules that allow differences.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadOpenApiDocument } from '../../../../src/tooling-exports.ts';
import { compareBodies, comparerFor } from '../../src/compare/comparers/registry.ts';
import { RuleMatcher, parseTolerance, type Rules } from '../../src/compare/rules.ts';
import { batteryRequests } from '../../src/compare/sources/battery.ts';
import { formatRegistry, JSCONFIG_FORMS, LINE_BREAKS } from '../../src/compare/sources/format-battery.ts';
import { loadSource } from '../../src/compare/sources/registry.ts';
import { readAccessLog } from '../../src/compare/sources/access-log.ts';
import { readHar } from '../../src/compare/sources/har.ts';
import { readW3cLog } from '../../src/compare/sources/w3c-log.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const lines = (r: { requests: { method: string; url: string; origin: { line?: number } }[] }) =>
  r.requests.map((q) => `${q.origin.line} ${q.method} ${q.url}`);
const issues = (r: { issues: { line: number; reason: string }[] }) => r.issues.map((i) => `${i.line}: ${i.reason}`);

describe('compare: request sources', () => {
  it(
    'IIS W3C extended log: columns from #Fields: (also when they change mid-file), bad lines reported by ' + 'number',
    () => {
      const r = loadSource(fixture('iis-w3c.log'));
      expect(r.source).to.equal('w3c');
      expect(lines(r)).to.deep.equal([
        '5 GET /v1/echo/hello',
        '6 GET /v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true',
        '8 POST /json/reply/GetFlatRequest?format=json',
        '10 GET /v1/echo/after%20fields%20change?callback=cb',
      ]);
      expect(issues(r)).to.deep.equal(['7: 5 values for 15 #Fields', '11: unknown method FETCH']);
      expect(issues(readW3cLog('x.log', 'GET /a - 200\n'))).to.deep.equal([
        '1: data line before any #Fields: directive',
      ]);
    },
  );

  it('common/combined access log: quoted request and agent (with escaped quotes), bad lines reported by number', () => {
    const r = loadSource(fixture('access-combined.log'));
    expect(r.source).to.equal('access-log');
    expect(lines(r)).to.deep.equal([
      '1 GET /v1/echo/hello',
      '2 GET /v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&format=xml',
      '4 GET /v1/echo/quoted?callback=cb',
      '6 HEAD /json/reply/EchoRequest?Message=hi',
    ]);
    expect(issues(r)).to.have.length(2);
    expect(issues(r)[0]).to.match(/^3: not a common\/combined log line/);
    expect(issues(r)[1]).to.match(/^5: bad request line/);
    expect(
      lines(readAccessLog('x', '1.2.3.4 - - [01/Mar/2024:00:00:01 +0000] "GET //v1//echo/x HTTP/1.1" 200 1\n')),
    ).to.deep.equal(['1 GET //v1//echo/x']);
  });

  it(
    'HAR: each entry replayed by path and query with its headers (no cookies) and body; bad entries reported by ' +
      'line',
    () => {
      const r = loadSource(fixture('capture.har'));
      expect(r.source).to.equal('har');
      expect(lines(r)).to.deep.equal(['6 GET /v1/echo/from-har?callback=cb', '35 POST /json/reply/EchoRequest']);
      expect(r.requests[0]!.headers).to.deep.equal({ Accept: 'application/json' });
      expect(r.requests[1]!.body).to.equal('{"Message":"posted"}');
      expect(issues(r)).to.deep.equal(['27: entries[1]: bad request.url "not a url"', '53: entries[3]: no request']);
      expect(issues(readHar('broken.har', '{"log": {"entries": [\n  {"request": }\n]}}'))[0]).to.match(
        /^2: not a HAR file: ValueExpected/,
      );
    },
  );

  it('a plain list of URLs or METHOD URL lines', () => {
    const r = loadSource(fixture('urls.txt'));
    expect(r.source).to.equal('urls');
    expect(lines(r)).to.deep.equal([
      '2 GET /v1/echo/from-list',
      '3 GET /v1/echo/with-method?format=xml',
      '4 GET /json/reply/EchoRequest?Message=absolute',
      '5 HEAD /v1/echo/head',
    ]);
    expect(issues(r)).to.deep.equal([
      "6: expected URL or METHOD URL, got 'too many words here'",
      "7: expected URL or METHOD URL, got 'FETCH /v1/echo/x'",
    ]);
  });

  it(
    'the battery covers every operation of openapi/, every query field in every binder form, formats, JSONP, ' +
      'routes, wsdl/ and the wire rules',
    () => {
      const battery = batteryRequests();
      const rules = battery.map((r) => r.origin.rule!);
      expect(new Set(rules).size, 'rule names are unique').to.equal(rules.length);
      const doc = loadOpenApiDocument();
      const yaml = readFileSync(
        fileURLToPath(new URL('../../../../openapi/reporting-service.yaml', import.meta.url)),
        'utf8',
      );
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item ?? {}) as {
          operationId?: string;
          parameters?: { $ref?: string; name?: string; in?: string }[];
        }[]) {
          if (!op?.operationId) continue;
          const hasSample = rules.includes(`op:${op.operationId}:200`);
          // The report-link route takes a signed token: no sample can be built from the contract alone.
          if (!hasSample) {
            expect(yaml).to.match(/\{Token\}/);
            continue;
          }
          for (const p of op.parameters ?? []) {
            const param = p.$ref
              ? (doc.components!.parameters as Record<string, { in: string; name: string }>)[p.$ref.split('/').pop()!]!
              : p;
            const name = param.name!;
            if (param.in !== 'query' || ['format', 'callback'].includes(name)) continue;
            expect(
              rules.some((r) => r.startsWith(`binder:${op.operationId}:${name}=`)),
              `${op.operationId} ${name}`,
            ).to.equal(true);
          }
        }
      }
      expect(rules).to.include.members([
        'binder:GetFlat:Locations=brackets',
        'binder:GetFlat:Locations=repeated',
        'binder:GetFlat:Filters=comma',
        'binder:GetFlat:StartDate=wcf-offset',
        'binder:GetFlat:UseAccountMapping=on',
        'binder:GetFlat:OrderBy=bad',
        'format:GetFlat:suffix.xml',
        'format:Echo:accept=application/xml',
        'jsonp:Echo:callback-sanitised',
        'route:GetFlat:upper-case',
        'op:GetFlat:401',
        'op:Echo:anonymous',
        'wsdl:served',
        'soap:fault',
        'wire:404-text-plain',
        'wire:405-unknown-op',
      ]);
      const repeated = battery.find((r) => r.origin.rule === 'binder:GetFlat:Locations=repeated')!;
      expect(repeated.url).to.equal('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations=101&Locations=102');
      expect(battery.find((r) => r.origin.rule === 'op:GetFlat:401')!.anonymous).to.equal(true);
    },
  );

  it(
    'the battery is generated from the format registry: every writer and wrapper, jsconfig, bodies in every ' +
      'client format, one-way, batches, empty bodies, line breaks',
    () => {
      const battery = batteryRequests();
      const byRule = new Map(battery.map((r) => [r.origin.rule!, r]));
      const registry = formatRegistry();
      for (const entry of registry.entries.filter((e) => !e.wraps && (e.writeDto || e.writeResult))) {
        expect(byRule.has(`format:GetFlat:format=${entry.format}`), entry.format).to.equal(true);
        expect(byRule.get(`format:Echo:accept=${entry.mediaType}`)?.headers.Accept, entry.format).to.equal(
          entry.mediaType,
        );
        if (entry.predefinedRoutes)
          expect(byRule.get(`format:EchoReplyGet:/${entry.format}/reply`)?.url, entry.format).to.match(
            new RegExp(`^/${entry.format}/reply/EchoRequest(\\?|$)`),
          );
      }
      for (const form of JSCONFIG_FORMS) expect(byRule.has(`jsconfig:Echo:${form}:format=jsv`), form).to.equal(true);
      // Bodies as each ServiceStack client writes them, by the format's own writer.
      expect(byRule.get('body:EchoReplyPost:jsv')).to.deep.include({
        url: '/jsv/reply/EchoRequest',
        body: '{Message:conformance}',
        headers: { 'Content-Type': 'application/jsv' },
      });
      expect(byRule.get('body:EchoReplyPost:csv')).to.deep.include({
        url: '/csv/reply/EchoRequest',
        body: 'Message\r\nconformance\r\n',
        headers: { 'Content-Type': 'text/csv' },
      });
      expect(byRule.get('body:EchoReplyPost:xml')!.body).to.match(
        new RegExp(
          String.raw`^<\?xml[^>]*\?><EchoRequest [^>]*xmlns="http://schemas\.servicestack\.net/types">` +
            String.raw`<Message>conformance</Message></EchoRequest>$`,
        ),
      );
      expect(byRule.get('body:EchoReplyPost:json:oneway')!.url).to.equal('/json/oneway/EchoRequest');
      for (const format of ['json', 'xml', 'jsv', 'csv'])
        expect(byRule.get(`body:GetFlatReplyPost:${format}:empty`)).to.deep.include({ method: 'POST', body: '' });
      // Batches in the formats whose writer writes a list (SendAll): JSON and JSV.
      expect(byRule.get('body:EchoReplyPost:json:batch')).to.deep.include({
        url: '/json/reply/EchoRequest[]',
        body: '[{"Message":"conformance"},{"Message":"conformance"}]',
      });
      expect(byRule.get('body:EchoReplyPost:jsv:batch-oneway')).to.deep.include({
        url: '/jsv/oneway/EchoRequest[]',
        body: '[{Message:conformance},{Message:conformance}]',
      });
      expect(byRule.has('body:EchoReplyPost:html'), 'no client posts HTML').to.equal(false);
      // Line breaks in every format that writes DTOs, and in every body format.
      for (const entry of registry.dtoFormats) {
        for (const [name] of LINE_BREAKS)
          expect(
            byRule.has(`line-break:EchoReplyGet:Message=${name}:format=${entry.format}`),
            `${entry.format} ${name}`,
          ).to.equal(true);
      }
      expect(byRule.get('line-break:EchoReplyGet:Message=lf:format=csv')!.url).to.equal(
        '/json/reply/EchoRequest?Message=line%0Abreak&format=csv',
      );
      expect(byRule.get('body:EchoReplyPost:jsv:line-break:Message=crlf')!.body).to.equal('{Message:"line\r\nbreak"}');
    },
  );
});

describe('compare: body comparers and rules', () => {
  const diff = (mediaType: string, a: string, b: string) =>
    compareBodies(comparerFor(mediaType, false), a, b).diffs.map(
      (d) => `${d.path} ${d.kind} ${JSON.stringify(d.old)} ${JSON.stringify(d.new)}`,
    );

  it('JSON field by field by path', () => {
    expect(diff('application/json', '{"A":{"B":[1,2]},"C":"x"}', '{"A":{"B":[1,3,4]},"D":1}')).to.deep.equal([
      '$.A.B[1] changed 2 3',
      '$.A.B[2] added undefined 4',
      '$.C removed "x" undefined',
      '$.D added undefined 1',
    ]);
  });

  it('JSONP: the callback name and the wrapped JSON', () => {
    expect(diff('text/javascript', 'cb({"A":1})', 'other({"A":2})')).to.deep.equal([
      'callback() changed "cb" "other"',
      '$.A changed 1 2',
    ]);
  });

  it('XML element by element, the root as $, child order', () => {
    const a =
      '<?xml version="1.0"?><R xmlns="n"><M>1</M><Rows><Row><N>a</N><V>1</V></Row><Row><N>b</N></Row></Rows></R>';
    const b =
      '<?xml version="1.0"?><R xmlns="n"><M>007</M><Rows><Row><V>1</V><N>a</N></Row><Row><N>c</N></Row></Rows></R>';
    expect(diff('application/xml', a, b)).to.deep.equal([
      '$.M changed "1" "007"',
      '$.Rows.Row[1].N changed "b" "c"',
      '$.Rows.Row[0].order() changed "N V" "V N"',
    ]);
    expect(diff('application/xml', '<A/>', '<B/>')).to.deep.equal(['root() changed "A" "B"']);
  });

  it(
    "XML by namespace, not prefix: .NET's d2p1/d3p1 and s:/env: are the same; another namespace or i:nil is " + 'not',
    () => {
      const arrays = (prefix: string, second: string) =>
        `<R xmlns="urn:t" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><C ` +
        `xmlns:${prefix}="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><${prefix}:string>` +
        `a</${prefix}:string><${prefix}:string>${second}</${prefix}:string></C><S i:nil="true"/></R>`;
      expect(diff('application/xml', arrays('d2p1', 'b'), arrays('d3p1', 'b'))).to.deep.equal([]);
      expect(
        diff('application/xml', arrays('d2p1', 'b'), arrays('d3p1', 'c').replace('<S i:nil="true"/>', '<S/>')),
      ).to.deep.equal(['$.C.string[1][\'#text\'] changed "b" "c"', '$.S changed {"@xsi:nil":"true"} ""']);
      const envelope = (p: string, ns: string) =>
        `<${p}:Envelope xmlns:${p}="http://www.w3.org/2003/05/soap-envelope"><${p}:Body><X ` +
        `xmlns="${ns}">1</X></${p}:Body></${p}:Envelope>`;
      expect(diff('application/soap+xml', envelope('s', 'urn:a'), envelope('env', 'urn:a'))).to.deep.equal([]);
      expect(diff('application/soap+xml', envelope('s', 'urn:a'), envelope('env', 'urn:b'))).to.deep.equal([
        '$.Body.X[\'@xmlns\'] changed "urn:a" "urn:b"',
      ]);
    },
  );

  it('CSV cell by cell, by column name', () => {
    expect(diff('text/csv', 'Name,Jan 2024\nSales,1\nRent,2\n', 'Name,Jan 2024\nSales,1\nRent,3\n')).to.deep.equal([
      '$.rows[1][\'Jan 2024\'] changed "2" "3"',
    ]);
  });

  it('text line by line; a body that does not parse as its type is compared as text', () => {
    expect(diff('text/plain', 'a\nb\nc', 'a\nB\nc\nd')).to.deep.equal([
      '$[1] changed "b" "B"',
      '$[3] added undefined "d"',
    ]);
    const cut = diff('application/json', '{"A":1}', '{"A":');
    expect(cut).to.have.length(2);
    expect(cut[0]).to.match(/^format\(\) changed "valid json" "not valid json: .+"$/);
    expect(cut[1]).to.equal('$[0] changed "{\\"A\\":1}" "{\\"A\\":"');
  });

  it('rules: JSONPath ignores (one endpoint or all), numeric tolerances, header and status rules', () => {
    const rules: Rules = {
      headers: [],
      ignore: [{ path: '$..BuildTime' }, { path: '$.Rows[*].Url', endpoint: 'GET /x' }, { path: 'header Vary' }],
      tolerances: [parseTolerance('$.Rows[*].Amount=0.01'), parseTolerance('$.Total=1%')],
    };
    const a = { ReportModel: { BuildTime: 1 }, Rows: [{ Url: 'u', Amount: 1.0 }], Total: 100 };
    const b = { ReportModel: { BuildTime: 2 }, Rows: [{ Url: 'v', Amount: 1.005 }], Total: 100.5 };
    const m = new RuleMatcher(rules, 'GET /x', [a, b]);
    expect(
      m.allow({
        path: '$.ReportModel.BuildTime',
        segments: ['$', 'ReportModel', 'BuildTime'],
        kind: 'changed',
        old: 1,
        new: 2,
      }),
    ).to.equal('ignore $..BuildTime');
    expect(
      m.allow({ path: '$.Rows[0].Url', segments: ['$', 'Rows', 0, 'Url'], kind: 'changed', old: 'u', new: 'v' }),
    ).to.equal('ignore $.Rows[*].Url (GET /x)');
    expect(
      new RuleMatcher(rules, 'GET /y', [a, b]).allow({
        path: '$.Rows[0].Url',
        segments: ['$', 'Rows', 0, 'Url'],
        kind: 'changed',
        old: 'u',
        new: 'v',
      }),
    ).to.equal(undefined);
    expect(
      m.allow({ path: '$.Rows[0].Amount', segments: ['$', 'Rows', 0, 'Amount'], kind: 'changed', old: 1, new: 1.005 }),
    ).to.equal('tolerance $.Rows[*].Amount ±0.01');
    expect(
      m.allow({ path: '$.Rows[0].Amount', segments: ['$', 'Rows', 0, 'Amount'], kind: 'changed', old: 1, new: 1.5 }),
    ).to.equal(undefined);
    expect(m.allow({ path: '$.Total', segments: ['$', 'Total'], kind: 'changed', old: 100, new: 100.5 })).to.equal(
      'tolerance $.Total ±1%',
    );
    expect(m.allow({ path: 'header Vary', kind: 'changed', old: 'Accept', new: undefined })).to.equal(
      'ignore header Vary',
    );
    expect(m.allow({ path: 'status', kind: 'changed', old: 200, new: 404 })).to.equal(undefined);
    expect(() => parseTolerance('$.x=abc')).to.throw(/PATH=NUMBER/);
  });
});
