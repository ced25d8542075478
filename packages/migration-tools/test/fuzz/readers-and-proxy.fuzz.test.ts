/**
 * Goal 6 of issue 36: a bounded fuzz round (fast-check) of the migration tools' inputs. The compare tool's readers
 * (HAR, common/combined access logs, IIS W3C logs) take any text, well-formed or hostile: they never throw, every
 * request they give is a method and a path to replay, and every issue names a line of the file. The shadow proxy,
 * between a real instance of this service (the production process) and itself, takes random methods, paths, queries,
 * headers (credentials among them) and bodies: each client gets what the host answers directly, the proxy stays up,
 * and its figures (behind the page's token) keep no credential the clients sent.
 * Runs: FUZZ_RUNS (default 200 per reader, a tenth of it through the proxy; `npm run fuzz` uses 10,000).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAccessLog } from '../../src/compare/sources/access-log.ts';
import { readHar } from '../../src/compare/sources/har.ts';
import { readW3cLog } from '../../src/compare/sources/w3c-log.ts';
import type { SourceResult } from '../../src/compare/types.ts';
import type { ShadowSnapshot } from '../../src/shadow/stats.ts';
import {
  ensureProductionBuild,
  REPO_ROOT,
  startProductionServer,
  startServerProcess,
  type ServerProcess,
} from '../../../../scripts/lib/server-process.ts';

const RUNS = Number(process.env.FUZZ_RUNS || 200);
const PROXY_RUNS = Math.max(20, Math.round(RUNS / 10));

/** What every reader promises for any text. */
function wellFormed(result: SourceResult, text: string): void {
  const lines = text.split('\n').length;
  for (const request of result.requests) {
    expect(request.method).to.match(/^[A-Z]+$/);
    expect(request.url.startsWith('/'), request.url).to.equal(true);
  }
  for (const issue of result.issues) {
    expect(issue.line, issue.reason).to.be.within(0, lines + 1);
    expect(issue.reason).to.be.a('string').and.not.equal('');
  }
}

const token = fc.stringMatching(/^[!-~]{0,12}$/);
const anyText = fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }));
const urlish = fc.oneof(fc.webUrl({ withQueryParameters: true }), token, fc.constant('/v1/echo/x?a=1'));

const harEntry = fc.oneof(
  fc.record(
    {
      request: fc.record(
        {
          method: fc.oneof(fc.constantFrom('GET', 'HEAD', 'POST', 'get'), token, fc.integer()),
          url: urlish,
          headers: fc.oneof(
            fc.array(fc.record({ name: token, value: token })),
            fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
          ),
          postData: fc.record({ mimeType: token, text: fc.string({ maxLength: 40 }) }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
  fc.anything({ maxDepth: 2 }),
);
const har = fc
  .tuple(fc.array(harEntry, { maxLength: 8 }), fc.boolean())
  .map(([entries, pretty]) => JSON.stringify({ log: { version: '1.2', entries } }, null, pretty ? 2 : undefined));
/** A well-formed HAR cut anywhere, or a byte changed: the syntax errors a truncated download or a bad edit gives. */
const brokenHar = fc
  .tuple(har, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }))
  .map(([text, at, c]) => (at % 2 ? text.slice(0, at % (text.length + 1)) : text.replace(text[at % text.length]!, c)));

const accessLine = fc
  .record({
    host: fc.oneof(fc.ipV4(), token),
    user: fc.oneof(fc.constant('-'), token),
    date: fc.oneof(fc.constant('[10/Oct/2024:13:55:36 -0700]'), token),
    method: fc.oneof(fc.constantFrom('GET', 'HEAD', 'POST'), token),
    target: fc.oneof(urlish, fc.constant('/v1/echo/"quoted"')),
    protocol: fc.oneof(fc.constant('HTTP/1.1'), token),
    status: fc.oneof(fc.constant('200'), token),
    tail: fc.oneof(fc.constant(' 123 "-" "curl/8"'), fc.string({ maxLength: 30 })),
  })
  .map((l) => `${l.host} - ${l.user} ${l.date} "${l.method} ${l.target} ${l.protocol}" ${l.status}${l.tail}`);
const w3cLog = fc
  .tuple(
    fc.shuffledSubarray(['date', 'time', 'cs-method', 'cs-uri-stem', 'cs-uri-query', 'sc-status', 'x'], {
      minLength: 1,
    }),
    fc.array(fc.array(fc.oneof(token, fc.constantFrom('-', 'GET', '/v1/echo/x', 'a=1&b=2')), { maxLength: 8 }), {
      maxLength: 8,
    }),
  )
  .map(([fields, rows]) => `#Software: IIS\n#Fields: ${fields.join(' ')}\n${rows.map((r) => r.join(' ')).join('\n')}`);

describe('fuzz: the compare readers and the shadow proxy (issue 36, goal 6)', function () {
  this.timeout(600_000);

  it('the HAR reader: any text, any JSON, truncated and altered HARs; never a throw, lines within the file', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.json(), har, brokenHar), (text) => wellFormed(readHar('f.har', text), text)),
      { numRuns: RUNS },
    );
  });

  it('the access-log and W3C readers: any text and log-shaped lines; never a throw, lines within the file', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyText,
          fc.array(accessLine, { maxLength: 12 }).map((l) => l.join('\n')),
        ),
        (text) => wellFormed(readAccessLog('access.log', text), text),
      ),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.oneof(anyText, w3cLog), (text) => wellFormed(readW3cLog('u_ex.log', text), text)),
      { numRuns: RUNS },
    );
  });

  describe('the shadow proxy between a real instance and itself', () => {
    let dir: string;
    let host: ServerProcess;
    let proxy: ServerProcess;
    before(async () => {
      await ensureProductionBuild();
      dir = mkdtempSync(join(tmpdir(), 'rs-shadow-fuzz-'));
      host = await startProductionServer({ DATA_DIR: dir, DEMO_DATA: '1', LOG_LEVEL: 'warn' });
      await host.waitForOutput(/Demo API key/);
      proxy = await startServerProcess(
        join(REPO_ROOT, 'node_modules/.bin/tsx'),
        // Every fuzzed exchange mirrored (and its record checked for secrets), however busy the machine.
        [
          'packages/migration-tools/scripts/shadow.ts',
          '--old',
          host.url,
          '--new',
          host.url,
          '--listen',
          '0',
          '--cpu-busy',
          '100',
        ],
        { env: { ...process.env, NODE_OPTIONS: '' } },
      );
    });
    after(async () => {
      await Promise.all([proxy?.stop(), host?.stop()]);
      rmSync(dir, { recursive: true, force: true });
    });

    const send = (base: string, r: { method: string; path: string; headers: Record<string, string>; body?: string }) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${base}${r.path}`, { method: r.method, headers: r.headers, agent: false }, (res) => {
          let body = '';
          res.setEncoding('latin1');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end(r.body);
      });

    it(
      'random requests: each answered as the host answers it directly, no secret kept, the proxy stays ' + 'up',
      async () => {
        const secrets: string[] = [];
        const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,16}$/);
        const request = fc.record({
          method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
          path: fc.oneof(
            fc.constantFrom(
              '/v1/echo/',
              '/v1/Reporting/ProfitAndLoss/Flat',
              '/json/reply/',
              '/_shadow',
              '/_shadow.json',
            ),
            fc.array(segment, { maxLength: 4 }).map((s) => `/${s.join('/')}`),
          ),
          name: segment,
          query: fc.array(
            fc.tuple(fc.constantFrom('CompanyId', 'format', 'callback', 'apikey', 'ss-tok', 'x'), segment),
            {
              maxLength: 4,
            },
          ),
          secret: fc.stringMatching(/^[A-Za-z0-9]{12,20}$/),
          credential: fc.constantFrom('X-ApiKey', 'Authorization', 'Cookie', 'none'),
          accept: fc.constantFrom('*/*', 'application/json', 'application/xml', 'text/html', 'text/csv'),
          body: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
        });
        await fc.assert(
          fc.asyncProperty(request, async (r) => {
            secrets.push(r.secret);
            const query = [...r.query.map(([k, v]) => `${k}=${v}`), `apikey=${r.secret}`].join('&');
            const headers: Record<string, string> = { Accept: r.accept };
            if (r.credential === 'X-ApiKey') headers['X-ApiKey'] = `rsk_${r.secret}`;
            if (r.credential === 'Authorization') headers.Authorization = `Bearer ${r.secret}`;
            if (r.credential === 'Cookie') headers.Cookie = `ss-id=${r.secret}`;
            const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
            // A body always framed (Node sends an OPTIONS or DELETE body without Content-Length, which no server
            // reads).
            if (body !== undefined) {
              headers['Content-Type'] = 'application/json';
              headers['Content-Length'] = String(Buffer.byteLength(body));
            }
            const sent = { method: r.method, path: `${r.path}${r.name}?${query}`, headers, body };
            const [through, direct] = await Promise.all([send(proxy.url, sent), send(host.url, sent)]);
            expect(
              through.status,
              `${r.method} ${sent.path}: ${through.body.slice(0, 300)} / ${direct.body.slice(0, 300)}`,
            ).to.equal(direct.status);
          }),
          { numRuns: PROXY_RUNS },
        );
        const json = /live page \S+, JSON (\S+?)[;\s]/.exec(proxy.output())![1]!;
        const deadline = Date.now() + 60_000;
        let figures: ShadowSnapshot;
        for (;;) {
          figures = (await (await fetch(json)).json()) as ShadowSnapshot;
          if (figures.queue.waitingOrInFlight === 0 || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(figures.totals.served).to.be.at.least(PROXY_RUNS);
        const kept = JSON.stringify(figures);
        for (const secret of secrets) expect(kept.includes(secret), secret).to.equal(false);
        expect((await fetch(`${proxy.url}/v1/echo/still-up`)).status).to.equal(200);
      },
    );
  });
});
