/**
 * Red team round 3 (issue 25), finding 7: `npm run compare`'s HAR reader counted each entry's line number from the
 * start of the file, so a 25 MB HAR of 80,000 entries took 118 s before the first request. The reader is linear now:
 * the same file is read within this test's time-out (the old reader needs minutes), with every line number right.
 */
import { expect } from 'chai';
import { readHar } from '../../src/compare/sources/har.ts';

function harOf(count: number, padding: number): string {
  const entry = (i: number) =>
    JSON.stringify(
      {
        startedDateTime: '2024-01-01T00:00:00.000Z',
        request: {
          method: 'GET',
          url: `http://old-host/v1/echo/m${i}?pad=${'p'.repeat(padding)}`,
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'Accept', value: 'application/json' }],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: 0,
        },
        response: {
          status: 200,
          statusText: 'OK',
          httpVersion: 'HTTP/1.1',
          headers: [],
          cookies: [],
          content: { size: 0, mimeType: 'application/json' },
          redirectURL: '',
          headersSize: -1,
          bodySize: 0,
        },
        cache: {},
        timings: { send: 0, wait: 0, receive: 0 },
        time: 0,
      },
      null,
      2,
    );
  const entries = Array.from({ length: count }, (_, i) => entry(i));
  entries.push('{ "request": { "method": "GET", "url": "not a url" } }');
  return (
    `{\n  "log": {\n    "version": "1.2",\n    "creator": { "name": "test", "version": "1" },\n    "entries": ` +
    `[\n${entries.join(',\n')}\n    ]\n  }\n}\n`
  );
}

describe('compare: the HAR reader is linear (issue 25, finding 7)', function () {
  this.timeout(20_000);

  it('a 25 MB HAR of 80,000 entries is read, each request with its line, the bad last entry named at its line', () => {
    const text = harOf(80_000, 40);
    expect(text.length).to.be.above(25_000_000);
    const { requests, issues } = readHar('big.har', text);
    expect(requests).to.have.length(80_000);
    const lines = text.split('\n');
    for (const index of [0, 1, 39_999, 79_999]) {
      const { line } = requests[index]!.origin as { line: number };
      expect(lines[line - 1]).to.equal('{');
      expect(lines.slice(line - 1, line + 6).join('\n')).to.contain(`/v1/echo/m${index}?`);
    }
    expect(issues).to.have.length(1);
    expect(issues[0]!.reason).to.contain('entries[80000]: bad request.url');
    expect(lines[issues[0]!.line - 1]).to.contain('not a url');
  });

  // Issue 36, finding 14: a minified HAR is one line; the line count, done apart from the parser, scanned it to its
  // end once per entry (51 s for 80,000 entries). The lines now come from jsonc-parser's own visitor.
  it('a one-line (minified) HAR of 80,000 entries is read, every request at line 1, a syntax error at its line', () => {
    const pretty = harOf(80_000, 40);
    const minified = JSON.stringify(
      JSON.parse(pretty.replace('{ "request": { "method": "GET", "url": "not a url" } }', '{}')) as object,
    );
    expect(minified).to.not.contain('\n');
    const { requests, issues } = readHar('minified.har', minified);
    expect(requests).to.have.length(80_000);
    expect(requests.every((r) => (r.origin as { line: number }).line === 1)).to.equal(true);
    expect(issues).to.have.length(1);
    expect(issues[0]).to.include({ line: 1, reason: 'entries[80000]: no request' });
    const broken = readHar('broken.har', `{\n  "log": {\n    "entries": [\n      {,}\n    ]\n  }\n}\n`);
    expect(broken.issues).to.deep.equal([{ file: 'broken.har', line: 4, reason: 'not a HAR file: ValueExpected' }]);
  });
});
