/**
 * The wire rules of the spec (README's behaviour list, openapi/'s description), one check per request of
 * wireRequests() by the same name: JSON by default, `.json` and `?format=json`, JSONP wrapping and sanitising,
 * case-insensitive routes, 404 text/plain, 405 for an unknown `/json/reply/` operation, the date and GUID forms, and
 * ServiceStack 4.5.14's other built-in formats, bodies and metadata redirect (issue 10).
 */
import { check, hasResponseStatus, NotApplicable, requireApiKey, type ConformanceRule, type Exchange } from './rule.ts';
import { HYPHENATED_GUID, SAMPLE_MESSAGE, wireRequests } from './requests.ts';

/** The sample report's StartDate (2024-01-01, a query date: a local DateTime) as the wire writes it. */
const EXPECTED_START_DATE = String.raw`\/Date(1704067200000+0000)\/`;

interface WireCheck {
  description: string;
  /** The rule reads a report, which needs an API key. */
  needsKey?: true;
  check(res: Exchange): void;
}

type WireRuleName = keyof ReturnType<typeof wireRequests>;

const isEcho = (json: unknown) => (json as { Message?: unknown } | undefined)?.Message === SAMPLE_MESSAGE;

/** The expected date form with its milliseconds named, for a description. */
const MS_FORM = EXPECTED_START_DATE.replace(/\d+/, 'ms');

/** In the order the table lists them. */
const WIRE_CHECKS: Record<WireRuleName, WireCheck> = {
  'wire:json-default': {
    description: 'JSON by default: application/json; charset=utf-8',
    check(res) {
      check(res.status === 200, `status ${res.status}`);
      check(/^application\/json;\s*charset=utf-8$/i.test(res.contentType), `Content-Type '${res.contentType}'`);
      check(isEcho(res.json), 'Message not echoed');
    },
  },
  'wire:json-suffix': {
    description: 'a .json suffix forces JSON over Accept',
    check(res) {
      check(res.contentType.startsWith('application/json'), `Content-Type '${res.contentType}'`);
      check(isEcho(res.json), 'Message not echoed without the suffix');
    },
  },
  'wire:format-json': {
    description: '?format=json forces JSON over Accept',
    check(res) {
      check(res.contentType.startsWith('application/json') && isEcho(res.json), `Content-Type '${res.contentType}'`);
    },
  },
  'wire:jsonp': {
    description: '?callback=cb wraps the JSON as cb(...) in text/javascript',
    check(res) {
      check(res.contentType.startsWith('text/javascript'), `Content-Type '${res.contentType}'`);
      check(res.text.startsWith('cb(') && res.text.endsWith(')'), 'not wrapped as cb(...)');
      check(isEcho(JSON.parse(res.text.slice(3, -1))), 'the wrapped JSON is not the EchoResponse');
    },
  },
  'wire:jsonp-sanitise': {
    description: 'the callback name is reduced to [A-Za-z0-9._]',
    check(res) {
      check(res.text.startsWith('a_b__c__d('), `body starts '${res.text.slice(0, 12)}'`);
    },
  },
  'wire:jsonp-error': {
    description: 'a binding error to a JSONP caller is plain JSON with its status (raised before the service, as 4.5)',
    check(res) {
      check(res.status === 400 || res.status === 401, `status ${res.status}, expected 400 (or 401 without a key)`);
      check(hasResponseStatus(res.json), 'no plain {ResponseStatus} JSON body');
    },
  },
  'wire:case-insensitive': {
    description: 'routes match case-insensitively',
    check(res) {
      check(res.status === 200 && isEcho(res.json), `status ${res.status}`);
    },
  },
  'wire:404-text-plain': {
    description: 'an unknown route answers 404 text/plain with the body 404',
    check(res) {
      check(res.status === 404, `status ${res.status}, expected 404`);
      check(res.contentType.startsWith('text/plain'), `Content-Type '${res.contentType}', expected text/plain`);
      check(res.text.startsWith('404') || res.text.startsWith('Handler for Request not found'), 'body is not 404');
    },
  },
  'wire:405-unknown-op': {
    description: 'an unknown /json/reply/{Op} answers 405 with a ResponseStatus',
    check(res) {
      check(res.status === 405, `status ${res.status}, expected 405`);
      check(hasResponseStatus(res.json), 'no ResponseStatus');
      check(
        (res.json as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode === 'NotImplementedException',
        'ErrorCode is not NotImplementedException',
      );
    },
  },
  'wire:date-form': {
    description: `a query date is written ${MS_FORM} (a local DateTime, as 4.5.14 wrote it)`,
    needsKey: true,
    check(res) {
      check(res.status === 200, `status ${res.status}`);
      check(res.text.includes(`"StartDate":"${EXPECTED_START_DATE}"`), `StartDate is not "${EXPECTED_START_DATE}"`);
    },
  },
  'wire:guid-form': {
    description: 'GUIDs are written as 32 lowercase hex digits (hyphenated input accepted)',
    needsKey: true,
    check(res) {
      if (res.status === 400 && /Filters/.test(res.text) && !/Unable to bind/.test(res.text)) {
        throw new NotApplicable('the deployment has no tracking option to filter by; unknown option refused');
      }
      check(res.status === 200, `status ${res.status}`);
      const filters = (res.json as { SelectedOptions?: { Filters?: string[] } }).SelectedOptions?.Filters;
      check(
        filters?.length === 1 && filters[0] === HYPHENATED_GUID.replace(/-/g, '').toLowerCase(),
        `Filters echoed as ${JSON.stringify(filters)}`,
      );
    },
  },
  'wire:xml': {
    description: 'a .xml suffix answers DataContract XML (application/xml) in the ServiceStack namespace',
    check(res) {
      check(res.status === 200, `status ${res.status}`);
      check(res.contentType.startsWith('application/xml'), `Content-Type '${res.contentType}'`);
      check(
        /<EchoResponse [^>]*xmlns="http:\/\/schemas\.servicestack\.net\/types"/.test(res.text),
        'root is not EchoResponse in http://schemas.servicestack.net/types',
      );
    },
  },
  'wire:jsv': {
    description: 'a .jsv suffix answers JSV (application/jsv): {Message:…,CompanyName:…}',
    check(res) {
      check(
        res.status === 200 && res.contentType.startsWith('application/jsv'),
        `status ${res.status}, Content-Type '${res.contentType}'`,
      );
      check(res.text.startsWith(`{Message:${SAMPLE_MESSAGE},CompanyName:`), 'body is not the EchoResponse as JSV');
    },
  },
  'wire:csv': {
    description: "/csv/reply/{Op} answers CSV (text/csv): a header row of the DTO's properties, then its values",
    check(res) {
      check(
        res.status === 200 && res.contentType.startsWith('text/csv'),
        `status ${res.status}, Content-Type '${res.contentType}'`,
      );
      check(
        res.text.startsWith(`Message,CompanyName,ResponseStatus\r\n${SAMPLE_MESSAGE},`),
        'body is not the EchoResponse as CSV',
      );
    },
  },
  'wire:html': {
    description: 'a browser (Accept: text/html first) gets the HTML snapshot page',
    check(res) {
      check(
        res.status === 200 && res.contentType.startsWith('text/html'),
        `status ${res.status}, Content-Type '${res.contentType}'`,
      );
      check(/<title>EchoRequest Snapshot of /.test(res.text), 'no EchoRequest snapshot page');
    },
  },
  'wire:json-body-any-type': {
    description: '/json/reply reads a JSON body whatever its Content-Type, a trailing comma accepted',
    check(res) {
      check(res.status === 200 && isEcho(res.json), `status ${res.status}`);
    },
  },
  'wire:metadata': {
    description: 'GET / answers 302 to /metadata',
    check(res) {
      check(res.status === 302, `status ${res.status}, expected 302`);
      check(/\/metadata$/.test(res.location ?? ''), `Location '${res.location ?? ''}'`);
    },
  },
};

export function wireRules(companyId: number): ConformanceRule[] {
  const requests = wireRequests(companyId);
  return (Object.entries(WIRE_CHECKS) as [WireRuleName, WireCheck][]).map(
    ([name, { description, needsKey, check: checkAnswer }]) => ({
      name,
      description,
      async run(context) {
        if (needsKey) requireApiKey(context, 'the report requires an API key (--api-key)');
        checkAnswer(await context.send(requests[name]));
      },
    }),
  );
}
