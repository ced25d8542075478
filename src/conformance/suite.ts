/**
 * The contract conformance suite: rules derived from openapi/ (every operation answers its documented success
 * status and content type; documented error statuses carry a ResponseStatus; operations that require a key refuse
 * a request without one) and wsdl/ (the WSDL is served and names the service, port type and binding, with no
 * operations; a POSTed SOAP 1.2 message gets a SOAP fault), plus the wire rules of the spec (JSON default, `.json`,
 * `?format=json`, JSONP wrapping and sanitising, case-insensitive routes, 404 text/plain, 405 for an unknown
 * `/json/reply/` operation, `/Date()` and 32-hex GUID forms, XML). It speaks plain HTTP (fetch), so it runs against
 * any deployment: `npm run conformance -- <base-url>`, and in `npm test` against the in-process server.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3 } from 'openapi-types';
import { loadOpenApiDocument } from '../contract/openapi-document.ts';
import { HYPHENATED_GUID, operationRequests, SAMPLE_MESSAGE, WSDL_REQUESTS, wireRequests, type ContractRequest } from './requests.ts';

export type RuleStatus = 'pass' | 'fail' | 'n/a';
export interface RuleResult {
  rule: string;
  description: string;
  status: RuleStatus;
  /** Why it failed or does not apply. */
  reason?: string;
  exchange?: { request: string; response: string };
}
export interface ConformanceOptions {
  apiKey?: string;
  /** Company of the sample report requests (default 1). */
  companyId?: number;
  fetch?: typeof fetch;
  /** Longest wait for one answer, headers and body (default 10 s): a rule whose request times out fails, saying so. */
  timeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

const WSDL_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wsdl/SyncReply.wsdl');

interface Exchange {
  request: string;
  status: number;
  contentType: string;
  /** The Location header of a redirect. */
  location?: string;
  text: string;
  json?: unknown;
}

class RuleFailure extends Error {}
class NotApplicable extends Error {}

function check(condition: unknown, reason: string): asserts condition {
  if (!condition) throw new RuleFailure(reason);
}

function hasResponseStatus(json: unknown): boolean {
  const rs = (json as { ResponseStatus?: { ErrorCode?: unknown; Message?: unknown } } | undefined)?.ResponseStatus;
  return !!rs && typeof rs.ErrorCode === 'string' && typeof rs.Message === 'string';
}

export async function runConformance(baseUrl: string, options: ConformanceOptions = {}): Promise<RuleResult[]> {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const companyId = options.companyId ?? 1;
  const doc = loadOpenApiDocument();
  const results: RuleResult[] = [];
  let last: Exchange | undefined;

  async function send(request: ContractRequest): Promise<Exchange> {
    const { method, url: pathAndQuery, ...init } = request;
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== false && options.apiKey) headers['X-ApiKey'] = options.apiKey;
    const shownHeaders = Object.entries(headers).map(([k, v]) => `\n${k}: ${k.toLowerCase() === 'x-apikey' ? '***' : v}`).join('');
    // One deadline for the headers and the whole body: a host that never answers fails the rule instead of hanging.
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await doFetch(base + pathAndQuery, { method, headers, body: init.body, redirect: 'manual', signal });
      text = await res.text();
    } catch (error) {
      if (!signal.aborted) throw error;
      last = { request: `${method} ${pathAndQuery}${shownHeaders}${init.body ? `\n\n${init.body}` : ''}`, status: 0, contentType: '', text: '(no answer)' };
      throw new RuleFailure(`timed out: no complete answer to ${method} ${pathAndQuery} within ${timeoutMs} ms`);
    }
    const exchange: Exchange = {
      request: `${method} ${pathAndQuery}${shownHeaders}${init.body ? `\n\n${init.body}` : ''}`,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      location: res.headers.get('location') ?? undefined,
      text,
    };
    try {
      exchange.json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    last = exchange;
    return exchange;
  }

  async function rule(name: string, description: string, body: () => Promise<void>): Promise<void> {
    last = undefined;
    try {
      await body();
      results.push({ rule: name, description, status: 'pass' });
    } catch (error) {
      if (error instanceof NotApplicable) {
        results.push({ rule: name, description, status: 'n/a', reason: error.message });
        return;
      }
      const reason = error instanceof RuleFailure ? error.message : `error: ${(error as Error).message}`;
      const exchange = last as Exchange | undefined;
      results.push({
        rule: name,
        description,
        status: 'fail',
        reason,
        exchange: exchange && {
          request: exchange.request,
          response: `${exchange.status} ${exchange.contentType}\n${exchange.text.length > 600 ? `${exchange.text.slice(0, 600)}…` : exchange.text}`,
        },
      });
    }
  }

  // ---- rules derived from openapi/: every operation, every documented status we can provoke ----
  for (const { record, operationId: id, template, method: verb, needsKey, sample, bad } of operationRequests(doc, companyId)) {
    const ok = record.responses.get('200');
    const okType = ok?.dtoType;
    const okMedia = ok?.mediaTypes[0];

    await rule(`op:${id}:200`, `${verb} ${template} answers 200 ${okMedia ?? ''} with a ${okType ?? 'body'}`, async () => {
      if (!sample) throw new NotApplicable('no sample request can be built from the contract (e.g. a signed token)');
      if (needsKey && !options.apiKey) throw new NotApplicable('requires an API key (--api-key)');
      const res = await send(sample);
      check(res.status === 200, `status ${res.status}, expected 200`);
      check(okMedia && res.contentType.startsWith(okMedia), `Content-Type '${res.contentType}', expected ${okMedia}`);
      const required = okType ? (doc.components?.schemas?.[okType] as OpenAPIV3.SchemaObject | undefined)?.required ?? [] : [];
      for (const name of required) check(res.json && name in (res.json as object), `${okType}.${name} missing`);
    });

    if (record.responses.has('400')) {
      await rule(`op:${id}:400`, `${verb} ${template}: a bad request answers 400 with a ResponseStatus`, async () => {
        if (!bad) throw new NotApplicable('no input of this operation can be malformed');
        if (needsKey && !options.apiKey) throw new NotApplicable('requires an API key (--api-key)');
        const res = await send(bad);
        check(res.status === 400, `status ${res.status}, expected 400`);
        check(res.contentType.startsWith('application/json'), `Content-Type '${res.contentType}', expected application/json`);
        check(hasResponseStatus(res.json), 'no ResponseStatus with ErrorCode and Message');
      });
    }

    if (record.responses.has('401') && needsKey) {
      await rule(`op:${id}:401`, `${verb} ${template}: no API key answers 401 with a ResponseStatus`, async () => {
        if (!sample) throw new NotApplicable('no sample request can be built from the contract');
        const res = await send({ ...sample, key: false });
        check(res.status === 401, `status ${res.status}, expected 401`);
        check(hasResponseStatus(res.json), 'no ResponseStatus with ErrorCode and Message');
      });
    }
  }

  // ---- rules derived from wsdl/ ----
  const wsdl = readFileSync(WSDL_PATH, 'utf8');
  const names = {
    service: /<wsdl:service name="([^"]+)"/.exec(wsdl)?.[1],
    portType: /<wsdl:portType name="([^"]+)"/.exec(wsdl)?.[1],
    binding: /<wsdl:binding name="([^"]+)"/.exec(wsdl)?.[1],
  };
  await rule('wsdl:served', `GET /soap12?wsdl serves the WSDL naming ${names.service}, ${names.portType}, ${names.binding} with no operations`, async () => {
    const res = await send(WSDL_REQUESTS['wsdl:served']);
    check(res.status === 200, `status ${res.status}, expected 200`);
    check(/xml/.test(res.contentType), `Content-Type '${res.contentType}', expected text/xml`);
    for (const [what, name] of Object.entries(names)) {
      check(name && new RegExp(`<wsdl:${what === 'portType' ? 'portType' : what} name="${name}"`).test(res.text), `no wsdl:${what} named ${name}`);
    }
    check(!/<wsdl:operation\b/.test(res.text), 'the WSDL lists operations');
  });
  await rule('soap:fault', 'POST /soap12 with a SOAP 1.2 message answers a SOAP 1.2 Fault (application/soap+xml)', async () => {
    const res = await send(WSDL_REQUESTS['soap:fault']);
    check(res.contentType.startsWith('application/soap+xml'), `Content-Type '${res.contentType}', expected application/soap+xml`);
    check(/<(\w+:)?Fault\b/.test(res.text) && /http:\/\/www\.w3\.org\/2003\/05\/soap-envelope/.test(res.text), 'no SOAP 1.2 Fault in the body');
  });

  // ---- wire rules of the spec ----
  const wire = wireRequests(companyId);
  const isEcho = (json: unknown) => (json as { Message?: unknown } | undefined)?.Message === SAMPLE_MESSAGE;
  await rule('wire:json-default', 'JSON by default: application/json; charset=utf-8', async () => {
    const res = await send(wire['wire:json-default']);
    check(res.status === 200, `status ${res.status}`);
    check(/^application\/json;\s*charset=utf-8$/i.test(res.contentType), `Content-Type '${res.contentType}'`);
    check(isEcho(res.json), 'Message not echoed');
  });
  await rule('wire:json-suffix', 'a .json suffix forces JSON over Accept', async () => {
    const res = await send(wire['wire:json-suffix']);
    check(res.contentType.startsWith('application/json'), `Content-Type '${res.contentType}'`);
    check(isEcho(res.json), 'Message not echoed without the suffix');
  });
  await rule('wire:format-json', '?format=json forces JSON over Accept', async () => {
    const res = await send(wire['wire:format-json']);
    check(res.contentType.startsWith('application/json') && isEcho(res.json), `Content-Type '${res.contentType}'`);
  });
  await rule('wire:jsonp', '?callback=cb wraps the JSON as cb(...) in text/javascript', async () => {
    const res = await send(wire['wire:jsonp']);
    check(res.contentType.startsWith('text/javascript'), `Content-Type '${res.contentType}'`);
    check(res.text.startsWith('cb(') && res.text.endsWith(')'), 'not wrapped as cb(...)');
    check(isEcho(JSON.parse(res.text.slice(3, -1))), 'the wrapped JSON is not the EchoResponse');
  });
  await rule('wire:jsonp-sanitise', 'the callback name is reduced to [A-Za-z0-9._]', async () => {
    const res = await send(wire['wire:jsonp-sanitise']);
    check(res.text.startsWith('a_b__c__d('), `body starts '${res.text.slice(0, 12)}'`);
  });
  await rule('wire:jsonp-error', 'a binding error to a JSONP caller is plain JSON with its status (raised before the service, as 4.5)', async () => {
    const res = await send(wire['wire:jsonp-error']);
    check(res.status === 400 || res.status === 401, `status ${res.status}, expected 400 (or 401 without a key)`);
    check(hasResponseStatus(res.json), 'no plain {ResponseStatus} JSON body');
  });
  await rule('wire:case-insensitive', 'routes match case-insensitively', async () => {
    const res = await send(wire['wire:case-insensitive']);
    check(res.status === 200 && isEcho(res.json), `status ${res.status}`);
  });
  await rule('wire:404-text-plain', 'an unknown route answers 404 text/plain with the body 404', async () => {
    const res = await send(wire['wire:404-text-plain']);
    check(res.status === 404, `status ${res.status}, expected 404`);
    check(res.contentType.startsWith('text/plain'), `Content-Type '${res.contentType}', expected text/plain`);
    check(res.text.startsWith('404') || res.text.startsWith('Handler for Request not found'), 'body is not 404');
  });
  await rule('wire:405-unknown-op', 'an unknown /json/reply/{Op} answers 405 with a ResponseStatus', async () => {
    const res = await send(wire['wire:405-unknown-op']);
    check(res.status === 405, `status ${res.status}, expected 405`);
    check(hasResponseStatus(res.json), 'no ResponseStatus');
    check((res.json as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode === 'NotImplementedException', 'ErrorCode is not NotImplementedException');
  });
  await rule('wire:date-form', 'a query date is written \\/Date(ms+0000)\\/ (a local DateTime, as 4.5.14 wrote it)', async () => {
    if (!options.apiKey) throw new NotApplicable('the report requires an API key (--api-key)');
    const res = await send(wire['wire:date-form']);
    check(res.status === 200, `status ${res.status}`);
    check(/"StartDate":"\\\/Date\(1704067200000\+0000\)\\\/"/.test(res.text), 'StartDate is not "\\/Date(1704067200000+0000)\\/"');
  });
  await rule('wire:guid-form', 'GUIDs are written as 32 lowercase hex digits (hyphenated input accepted)', async () => {
    if (!options.apiKey) throw new NotApplicable('the report requires an API key (--api-key)');
    const res = await send(wire['wire:guid-form']);
    if (res.status === 400 && /Filters/.test(res.text) && !/Unable to bind/.test(res.text)) {
      throw new NotApplicable('the deployment has no tracking option to filter by; unknown option refused');
    }
    check(res.status === 200, `status ${res.status}`);
    const filters = (res.json as { SelectedOptions?: { Filters?: string[] } }).SelectedOptions?.Filters;
    check(filters?.length === 1 && filters[0] === HYPHENATED_GUID.replace(/-/g, '').toLowerCase(), `Filters echoed as ${JSON.stringify(filters)}`);
  });
  await rule('wire:xml', 'a .xml suffix answers DataContract XML (application/xml) in the ServiceStack namespace', async () => {
    const res = await send(wire['wire:xml']);
    check(res.status === 200, `status ${res.status}`);
    check(res.contentType.startsWith('application/xml'), `Content-Type '${res.contentType}'`);
    check(/<EchoResponse [^>]*xmlns="http:\/\/schemas\.servicestack\.net\/types"/.test(res.text), 'root is not EchoResponse in http://schemas.servicestack.net/types');
  });
  // ServiceStack 4.5.14's other built-in formats, predefined routes, bodies and metadata (issue 10).
  await rule('wire:jsv', 'a .jsv suffix answers JSV (application/jsv): {Message:…,CompanyName:…}', async () => {
    const res = await send(wire['wire:jsv']);
    check(res.status === 200 && res.contentType.startsWith('application/jsv'), `status ${res.status}, Content-Type '${res.contentType}'`);
    check(res.text.startsWith(`{Message:${SAMPLE_MESSAGE},CompanyName:`), 'body is not the EchoResponse as JSV');
  });
  await rule('wire:csv', '/csv/reply/{Op} answers CSV (text/csv): a header row of the DTO\'s properties, then its values', async () => {
    const res = await send(wire['wire:csv']);
    check(res.status === 200 && res.contentType.startsWith('text/csv'), `status ${res.status}, Content-Type '${res.contentType}'`);
    check(res.text.startsWith(`Message,CompanyName,ResponseStatus\r\n${SAMPLE_MESSAGE},`), 'body is not the EchoResponse as CSV');
  });
  await rule('wire:html', 'a browser (Accept: text/html first) gets the HTML snapshot page', async () => {
    const res = await send(wire['wire:html']);
    check(res.status === 200 && res.contentType.startsWith('text/html'), `status ${res.status}, Content-Type '${res.contentType}'`);
    check(/<title>EchoRequest Snapshot of /.test(res.text), 'no EchoRequest snapshot page');
  });
  await rule('wire:json-body-any-type', '/json/reply reads a JSON body whatever its Content-Type, a trailing comma accepted', async () => {
    const res = await send(wire['wire:json-body-any-type']);
    check(res.status === 200 && isEcho(res.json) && (res.json as { Message?: string }).Message === SAMPLE_MESSAGE, `status ${res.status}`);
  });
  await rule('wire:metadata', 'GET / answers 302 to /metadata', async () => {
    const res = await send(wire['wire:metadata']);
    check(res.status === 302, `status ${res.status}, expected 302`);
    check(/\/metadata$/.test(res.location ?? ''), `Location '${res.location ?? ''}'`);
  });
  return results;
}


/** The result table; failures follow with their request and response. */
export function formatResults(results: RuleResult[]): string {
  const width = Math.max(...results.map((r) => r.rule.length), 4);
  const lines = [`${'rule'.padEnd(width)}  status  description`, `${'-'.repeat(width)}  ------  -----------`];
  for (const r of results) lines.push(`${r.rule.padEnd(width)}  ${r.status.padEnd(6)}  ${r.description}${r.status === 'n/a' && r.reason ? ` (${r.reason})` : ''}`);
  const failed = results.filter((r) => r.status === 'fail');
  for (const f of failed) {
    lines.push('', `FAIL ${f.rule}: ${f.reason ?? ''}`);
    if (f.exchange) lines.push('  request:', ...indent(f.exchange.request), '  response:', ...indent(f.exchange.response));
  }
  const count = (s: RuleStatus) => results.filter((r) => r.status === s).length;
  lines.push('', `${count('pass')} pass, ${count('fail')} fail, ${count('n/a')} n/a`);
  return lines.join('\n');
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => `    ${l}`);
}
