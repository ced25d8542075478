/**
 * Property-based fuzzing (fast-check) of every route over real HTTP: random query strings, JSON, form and multipart
 * bodies (bracketed, sparse, huge and nested field names; many fields; file parts and charsets), path segments,
 * headers and SOAP bodies. For every request: no 5xx, no dropped connection, and every 4xx body in its
 * documented form: a ResponseStatus valid against openapi/'s ErrorResponse (JSON or JSONP), `404` text/plain for
 * unknown routes, a SOAP fault on /soap12. The app validates its own responses against openapi/ too.
 * Runs per route: FUZZ_RUNS (default 400; `npm run fuzz` uses 10,000).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Agent, request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { loadOpenApiDocument } from '../../../src/contract/openapi-document.ts';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

const RUNS = Number(process.env.FUZZ_RUNS || 400);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}
interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(base: URL, r: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

const doc = loadOpenApiDocument() as unknown as { components: { schemas: Record<string, unknown> } };
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: doc.components });
const validErrorResponse = ajv.compile({ $ref: 'openapi#/components/schemas/ErrorResponse' });

function checkResponse(r: Req, res: Res): void {
  const sent = `${r.method} ${r.path} ${JSON.stringify(r.headers)} ${r.body?.slice(0, 300) ?? ''}`;
  const where = `${sent}\n→ ${res.status} ${res.text.slice(0, 500)}`;
  // SOAP 1.2 HTTP binding: a VersionMismatch fault is sent with 500 (the registry's status); nothing else may be 5xx.
  const versionMismatch =
    res.status === 500 && r.path === '/soap12' && /VersionMismatch/.test(res.text) && /Fault/.test(res.text);
  if (!versionMismatch) expect(res.status, where).to.be.within(200, 499);
  if (res.status < 400 || r.method === 'HEAD') return;
  const type = String(res.headers['content-type'] ?? '');
  if (res.status === 404 && type === 'text/plain')
    return void expect(res.text, where).to.match(/^(404|Handler for Request not found)/);
  if (type.startsWith('application/soap+xml') || type.startsWith('text/xml'))
    return void expect(res.text, where).to.match(/<(soap|env|s)?:?Fault[\s>]/i);
  if (type.startsWith('application/xml')) return void expect(res.text, where).to.contain('ResponseStatus');
  // ServiceStack's other built-in formats, when the request asked for one (issue 10).
  if (type.startsWith('text/html'))
    return void expect(res.text, where).to.contain('<dt class="ib">Response Status</dt>');
  if (type.startsWith('application/jsv'))
    return void expect(res.text, where).to.match(/^\{ResponseStatus:\{ErrorCode:/);
  if (type.startsWith('text/csv')) return void expect(res.text, where).to.match(/^ResponseStatus\r\n"\{ErrorCode:/);
  let json = res.text;
  if (type.startsWith('text/javascript')) {
    const m = /^[A-Za-z0-9._]+\(([\s\S]*)\)$/.exec(res.text);
    expect(m, where).to.not.equal(null);
    json = m![1]!;
  } else {
    expect(type, where).to.equal('application/json; charset=utf-8');
  }
  const body = JSON.parse(json) as unknown;
  expect(validErrorResponse(body), `${where}\n${ajv.errorsText(validErrorResponse.errors)}`).to.equal(true);
  const status = (body as { ResponseStatus: { ErrorCode?: unknown } }).ResponseStatus;
  expect(status.ErrorCode, where).to.be.a('string');
}

// ---- generators ----
const FLAT_KEYS = [
  'CompanyId',
  'companyid',
  'UseCustomDateRange',
  'StartDate',
  'EndDate',
  'Locations',
  'Filters',
  'OrderBy',
  'IncludeComputedColumns',
  'UseAccountMapping',
  'format',
  'callback',
  'x',
];
const ECHO_KEYS = ['Message', 'message', 'format', 'callback', 'y'];
const scalarText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '2147483648',
    'true',
    'on',
    'yes',
    '[1,2]',
    '1,2',
    '[]',
    '/Date(1704067200000)/',
    '/Date(-1+0100)/',
    '2024-01-01',
    '20240101',
    '2024-13-45',
    'null',
    '{}',
    '%',
    '%ZZ',
    'json',
    'xml',
    'csv',
    'jsv',
    'Default',
    'AmountDescending',
    '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    '{0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9}',
  ),
  fc.integer().map(String),
  fc.array(fc.integer({ min: -5, max: 30 }), { maxLength: 5 }).map((a) => `[${a.join(',')}]`),
);
const encodeLoose = (s: string) => encodeURIComponent(s).replace(/%2C/g, ',').replace(/%5B/g, '[').replace(/%5D/g, ']');
const queryString = (keys: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 10 })), scalarText, fc.boolean()), {
      maxLength: 8,
    })
    .map((pairs) =>
      pairs.length
        ? '?' +
          pairs
            .map(([k, v, loose]) => `${encodeURIComponent(k)}=${loose ? encodeLoose(v) : encodeURIComponent(v)}`)
            .join('&')
        : '',
    );
const headers = fc
  .record(
    {
      accept: fc.constantFrom(
        undefined,
        '*/*',
        'application/json',
        'text/html',
        'application/xml',
        'text/plain;q=0.5, */*;q=0.1',
        'garbage/',
      ),
      'x-apikey': fc.constantFrom(undefined, undefined, undefined, 'rsk_nope', '', 'x'.repeat(300)),
      authorization: fc.constantFrom(undefined, undefined, 'Bearer', 'Bearer rsk_bad', 'Basic Zm9vOmJhcg=='),
      'x-request-id': fc.constantFrom(undefined, 'abc', 'bad id', 'z'.repeat(200)),
    },
    { requiredKeys: [] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);
const jsonValue = fc.oneof(
  scalarText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 40 })), { maxLength: 6 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);
const jsonBody = (keys: string[]) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...keys), jsonValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
    fc.json({ maxDepth: 3 }),
    fc.string({ maxLength: 60 }),
    fc.constantFrom(
      '',
      '{',
      '[',
      '{"CompanyId":1',
      'null',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"y":1}}}',
    ),
  );
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/xml',
);
const segment = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    'v1',
    'json',
    'reply',
    'echo',
    'Reporting',
    'ProfitAndLoss',
    'Flat',
    'GetFlatRequest',
    'EchoRequest',
    'soap12',
    'metrics',
    'x.json',
    'x.xml',
    '%00',
    '%ff',
    '%',
  ),
);
const soapBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc
    .tuple(
      fc.constantFrom('http://www.w3.org/2003/05/soap-envelope', 'http://schemas.xmlsoap.org/soap/envelope/', 'urn:x'),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[<&]/g, '')),
      fc.constantFrom('GetFlatRequest', 'EchoRequest', 'x:y', ''),
    )
    .map(
      ([ns, text, op]) =>
        `<?xml version="1.0"?><s:Envelope ` +
        `xmlns:s="${ns}"><s:Body>${op ? `<${op}>${text}</${op}>` : text}</s:Body></s:Envelope>`,
    ),
  fc.constantFrom(
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
    '<!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><l>&b;</l>',
    '<a><b></a>',
  ),
);
const soapType = fc.constantFrom(
  'application/soap+xml; charset=utf-8',
  'application/soap+xml; action="urn:GetFlat"',
  'text/xml',
  'application/json',
  'text/plain',
);

// ---- hostile shapes (issue 15): deep nesting, huge ranges, encodings ----
/** Nesting depths: small, around the SOAP cap (64), and far past it (the red team's 60,000 levels). */
const depth = fc.oneof(
  fc.integer({ min: 1, max: 100 }),
  fc.integer({ min: 100, max: 5_000 }),
  fc.constantFrom(60, 63, 64, 65, 20_000, 30_000),
);
const deepXml = fc
  .tuple(depth, fc.constantFrom('a', 'x:a', 's:Body'), fc.boolean(), fc.boolean())
  .map(([n, tag, closed, prefixed]) => {
    const decl = prefixed ? ' xmlns:x="urn:x"' : '';
    const inner = `<${tag}${decl}>`.repeat(n) + (closed ? `</${tag}>`.repeat(n) : '');
    return (
      `<s:Envelope ` + `xmlns:s="http://www.w3.org/2003/05/soap-envelope"${decl}><s:Body>${inner}</s:Body></s:Envelope>`
    );
  });
const wideXml = fc
  .integer({ min: 1, max: 15_000 })
  .map(
    (n) =>
      `<s:Envelope ` +
      `xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><Op>${'<a/>'.repeat(n)}</Op></s:Body>` +
      `</s:Envelope>`,
  );
const deepJson = fc
  .tuple(
    depth,
    fc.constantFrom('[', '{"a":'),
    fc.constantFrom('Message', 'CompanyId', 'Locations', 'StartDate', 'Filters'),
  )
  .map(([n, open, key]) => {
    const close = open === '[' ? ']' : '}';
    return `{"${key}":${open.repeat(n)}${open === '[' ? '' : '1'}${close.repeat(n)}}`;
  });
const year = fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(0, 1, 99, 100, 101, 1900, 9999, 10_000));
const isoDay = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
  .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
const epochMs = fc.oneof(
  fc.integer({ min: -70_000_000_000_000, max: 300_000_000_000_000 }),
  fc.constantFrom(-62_198_755_200_000, 253_402_300_800_000, 8_640_000_000_000_000, -8_640_000_000_000_001),
);
const anyDate = fc.oneof(
  isoDay,
  epochMs.map((ms) => `/Date(${ms})/`),
  epochMs.map((ms) => `/Date(${ms}+0100)/`),
);
const hugeRange = fc
  .tuple(anyDate, anyDate, fc.constantFrom('', '.json', '.csv'), fc.boolean())
  .map(
    ([from, to, ext, computed]) =>
      `/v1/Reporting/ProfitAndLoss/Flat${ext}?CompanyId=1&UseCustomDateRange=true&` +
      `StartDate=${encodeURIComponent(from)}&EndDate=${encodeURIComponent(to)}&` +
      `IncludeComputedColumns=${computed}`,
  );
const encoded = fc
  .tuple(
    fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-gzip', 'gzip, br', 'GZIP'),
    jsonBody(ECHO_KEYS),
    fc.constantFrom('whole', 'truncated', 'raw', 'garbage'),
  )
  .map(([encoding, json, how]) => {
    const name = encoding.toLowerCase();
    const packed =
      name === 'gzip'
        ? gzipSync(json)
        : name === 'deflate'
          ? deflateSync(json)
          : name === 'br'
            ? brotliCompressSync(json)
            : Buffer.from(json);
    const body =
      how === 'whole'
        ? packed
        : how === 'truncated'
          ? packed.subarray(0, Math.max(1, packed.length >> 1))
          : how === 'raw'
            ? Buffer.from(json)
            : Buffer.from('\x1f\x8b\x08\x00garbage');
    return { encoding, body };
  });

// ---- form and multipart bodies (issue 25): bracketed, sparse, huge and nested names; many fields; parts of every kind
// ----
/**
 * A field name as clients and attackers send it: a known key, bare or with an index (small, at the limit, huge),
 * nested.
 */
const fieldName = (keys: string[]) =>
  fc.oneof(
    fc.constantFrom(...keys),
    fc
      .tuple(
        fc.constantFrom(...keys),
        fc.oneof(fc.integer({ min: 0, max: 1_100 }), fc.constantFrom(999, 1000, 100_000_000, 4_294_967_294, 2 ** 53)),
      )
      .map(([k, i]) => `${k}[${i}]`),
    fc.constantFrom(...keys).map((k) => `${k}[]`),
    fc
      .tuple(
        fc.constantFrom(...keys),
        fc.array(fc.constantFrom('[a]', '[0]', '[]', '[__proto__]', '[constructor]'), { minLength: 1, maxLength: 40 }),
      )
      .map(([k, path]) => k + path.join('')),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: 200, max: 2_000 }).map((n) => 'n'.repeat(n)),
  );
/** `k=v&…`, each name and value percent-encoded. */
const queryOf = (fields: readonly (readonly [string, string])[]) =>
  fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

const formFields = (keys: string[]) =>
  fc.oneof(
    fc.array(fc.tuple(fieldName(keys), scalarText), { maxLength: 12 }),
    fc
      .integer({ min: 990, max: 1_010 })
      .map((n) => Array.from({ length: n }, (_, i) => [`f${i}`, '1'] as [string, string])),
  );
const charsetParam = fc.constantFrom(
  '',
  '',
  '; charset=utf-8',
  '; charset=UTF-8',
  '; charset=iso-8859-1',
  '; charset=utf-7',
  '; charset=utf-16le',
);
const urlencodedBody = (keys: string[]) =>
  fc.tuple(formFields(keys), charsetParam).map(([fields, charset]) => ({
    type: `application/x-www-form-urlencoded${charset}`,
    body: fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  }));
const BOUNDARY = 'fuzz-boundary';
const part = (keys: string[]) =>
  fc.oneof(
    fc
      .tuple(fieldName(keys), scalarText)
      .map(([name, value]) => `Content-Disposition: form-data; name="${name.replace(/["\r\n]/g, '')}"\r\n\r\n${value}`),
    fc
      .tuple(fieldName(keys), scalarText)
      .map(
        ([name, value]) =>
          `Content-Disposition: form-data; name="${name.replace(/["\r\n]/g, '')}"; ` +
          `filename="a.txt"\r\nContent-Type: application/octet-stream\r\n\r\n${value}`,
      ),
    fc
      .tuple(fieldName(keys), scalarText, fc.constantFrom('utf-7', 'utf-16le', 'latin1', 'x-unknown'))
      .map(
        ([name, value, cs]) =>
          `Content-Disposition: form-data; name="${name.replace(/["\r\n]/g, '')}"\r\nContent-Type: text/plain; ` +
          `charset=${cs}\r\n\r\n${value}`,
      ),
    fc.constant('Content-Type: text/plain\r\n\r\nno name'),
    fc.string({ maxLength: 40 }),
  );
const multipartBody = (keys: string[]) =>
  fc
    .tuple(
      fc.oneof(
        fc.array(part(keys), { maxLength: 10 }),
        formFields(keys).map((fields) =>
          fields.map(([k, v]) => `Content-Disposition: form-data; name="${k.replace(/["\r\n]/g, '')}"\r\n\r\n${v}`),
        ),
      ),
      fc.constantFrom('whole', 'unterminated', 'no boundary'),
      charsetParam,
    )
    .map(([parts, how, charset]) => {
      const body =
        parts.map((p) => `--${BOUNDARY}\r\n${p}\r\n`).join('') + (how === 'unterminated' ? '' : `--${BOUNDARY}--\r\n`);
      return {
        type:
          how === 'no boundary'
            ? `multipart/form-data${charset}`
            : `multipart/form-data; boundary=${BOUNDARY}${charset}`,
        body,
      };
    });
const formRoute = (op: string, _keys: string[], body: fc.Arbitrary<{ type: string; body: string }>) =>
  fc.tuple(fc.constantFrom('json', 'jsv', 'xml', 'csv'), body, headers).map(([prefix, b, h]) => ({
    method: 'POST',
    path: `/${prefix}/reply/${op}`,
    headers: { ...h, 'content-type': b.type },
    body: b.body,
  }));

const ROUTES: Record<string, fc.Arbitrary<Req>> = {
  'POST /{format}/reply/GetFlatRequest urlencoded forms': formRoute(
    'GetFlatRequest',
    FLAT_KEYS,
    urlencodedBody(FLAT_KEYS),
  ),
  'POST /{format}/reply/GetFlatRequest multipart': formRoute('GetFlatRequest', FLAT_KEYS, multipartBody(FLAT_KEYS)),
  'POST /{format}/reply/EchoRequest multipart': formRoute('EchoRequest', ECHO_KEYS, multipartBody(ECHO_KEYS)),
  'GET /v1/Reporting/ProfitAndLoss/Flat bracketed query names': fc
    .tuple(formFields(FLAT_KEYS), headers)
    .map(([fields, h]) => ({
      method: 'GET',
      path: `/v1/Reporting/ProfitAndLoss/Flat?${queryOf(fields)}`.slice(0, 8_000),
      headers: h,
    })),
  'POST /soap12 deep and wide XML': fc
    .tuple(fc.oneof(deepXml, wideXml), soapType)
    .map(([b, ct]) => ({ method: 'POST', path: '/soap12', headers: { 'content-type': ct }, body: b })),
  'POST /json/reply/{Op} deep JSON': fc
    .tuple(fc.constantFrom('EchoRequest', 'GetFlatRequest'), deepJson)
    .map(([op, b]) => ({
      method: 'POST',
      path: `/json/reply/${op}`,
      headers: { 'content-type': 'application/json' },
      body: b,
    })),
  'GET /v1/Reporting/ProfitAndLoss/Flat huge ranges': fc
    .tuple(hugeRange, headers)
    .map(([path, h]) => ({ method: 'GET', path, headers: h })),
  'POST /json/reply/EchoRequest encodings': fc
    .tuple(encoded, fc.constantFrom('EchoRequest', 'GetFlatRequest'))
    .map(([{ encoding, body }, op]) => ({
      method: 'POST',
      path: `/json/reply/${op}`,
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    })),
  'GET /v1/echo/{Message}': fc
    .tuple(segment, queryString(ECHO_KEYS), headers)
    .map(([s, q, h]) => ({ method: 'GET', path: `/v1/echo/${s || 'x'}${q}`, headers: h })),
  'GET /json/reply/EchoRequest': fc
    .tuple(queryString(ECHO_KEYS), headers)
    .map(([q, h]) => ({ method: 'GET', path: `/json/reply/EchoRequest${q}`, headers: h })),
  'POST /json/reply/EchoRequest': fc
    .tuple(queryString(ECHO_KEYS), jsonBody(ECHO_KEYS), contentType, headers)
    .map(([q, b, ct, h]) => ({
      method: 'POST',
      path: `/json/reply/EchoRequest${q}`,
      headers: { ...h, 'content-type': ct },
      body: b,
    })),
  'GET /v1/Reporting/ProfitAndLoss/Flat': fc
    .tuple(queryString(FLAT_KEYS), headers)
    .map(([q, h]) => ({ method: 'GET', path: `/v1/Reporting/ProfitAndLoss/Flat${q}`, headers: h })),
  'GET /json/reply/GetFlatRequest': fc
    .tuple(queryString(FLAT_KEYS), headers)
    .map(([q, h]) => ({ method: 'GET', path: `/json/reply/GetFlatRequest${q}`, headers: h })),
  'POST /json/reply/GetFlatRequest': fc
    .tuple(queryString(FLAT_KEYS), jsonBody(FLAT_KEYS), contentType, headers)
    .map(([q, b, ct, h]) => ({
      method: 'POST',
      path: `/json/reply/GetFlatRequest${q}`,
      headers: { ...h, 'content-type': ct },
      body: b,
    })),
  'POST /soap12': fc
    .tuple(soapBody, soapType, headers)
    .map(([b, ct, h]) => ({ method: 'POST', path: '/soap12', headers: { ...h, 'content-type': ct }, body: b })),
  'any path': fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'),
      fc.array(segment, { maxLength: 6 }),
      queryString([...FLAT_KEYS, ...ECHO_KEYS]),
      headers,
    )
    .map(([m, segs, q, h]) => ({
      method: m,
      path: `/${segs.join('/')}${q}`,
      headers: h,
      body: m === 'POST' || m === 'PUT' ? '{}' : undefined,
    })),
};

describe(`fuzz: generated requests per route (FUZZ_RUNS=${RUNS})`, function () {
  this.timeout(0);
  let t: ListeningTestApp;
  let base: URL;
  before(async () => {
    // As in production: attacks under the limit reach the parsers.
    t = await listenTestApp({ config: { bodyLimitBytes: 1_048_576 } });
    base = new URL(t.url);
  });
  after(async () => {
    agent.destroy();
    await t?.close();
  });

  for (const [name, arbitrary] of Object.entries(ROUTES)) {
    it(`${name}: no 5xx, no crash, every 4xx in its documented form`, async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(arbitrary, async (r) => checkResponse(r, await send(base, r))),
        { numRuns: RUNS, endOnFailure: true },
      );
      if (process.env.FUZZ_TIMING) console.log(`    ${name}: ${RUNS} requests in ${Date.now() - started} ms`);
      // still serving
      expect((await send(base, { method: 'GET', path: '/v1/echo/alive', headers: {} })).status).to.equal(200);
    });
  }
});
