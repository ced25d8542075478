/**
 * The built-in battery: every request of the conformance kit's rules (src/conformance/requests.ts: each operation of
 * openapi/ valid, bad and without a key; wsdl/; the wire rules), plus what the contract says each operation reads,
 * generated from openapi/ (each operation record's binding plan, src/contract/operations.ts): every binder form of
 * every input field (booleans, dates,
 * GUIDs, arrays, enums, integers, valid and not), route spellings (case, empty segments), anonymous calls and HEAD;
 * and from the format registry (format-battery.ts): every writer, wrapper, `?jsconfig=` form, request body format,
 * one-way and batched route, empty body and line-break value. Nothing is listed by hand per operation or format.
 */
import type { FieldSpec, ScalarKind } from '../../../../../src/tooling-exports.ts';
import {
  HYPHENATED_GUID,
  operationRequests,
  WSDL_REQUESTS,
  wireRequests,
  type ContractRequest,
} from '../../../../../src/tooling-exports.ts';
import { Keywords } from '../../../../../src/tooling-exports.ts';
import { formatBodyRequests, formatGetRequests, formatRegistry } from './format-battery.ts';
import type { ReplayRequest, SourceResult } from '../types.ts';

export interface BatteryOptions {
  /** The company of report requests (default 1). */
  companyId?: number;
}

const GUID_32 = HYPHENATED_GUID.replace(/-/g, '').toLowerCase();
const OTHER_GUID = 'ffffffffeeeeddddccccbbbbbbbbbbbb';
const DAY_MS = Date.UTC(2024, 0, 1);

/** Values of one scalar in each form the legacy binder reads, then malformed ones (named for the rule). */
function scalarForms(kind: ScalarKind): [string, string][] {
  switch (kind.kind) {
    case 'boolean':
      return [
        ['true', 'true'],
        ['FALSE', 'FALSE'],
        ['1', '1'],
        ['0', '0'],
        ['t', 't'],
        ['f', 'f'],
        ['y', 'y'],
        ['n', 'n'],
        ['on', 'on'],
        ['off', 'off'],
        ['empty', ''],
        ['bad', 'maybe'],
      ];
    case 'integer':
      return [
        ['1', '1'],
        ['leading-zero', '01'],
        ['negative', '-1'],
        ['empty', ''],
        ['bad', 'x'],
        ['overflow', '99999999999'],
      ];
    case 'date':
      return [
        ['wcf', `/Date(${DAY_MS})/`],
        ['wcf-offset', `/Date(${DAY_MS}+0100)/`],
        ['iso-date', '2024-01-01'],
        ['iso-time', '2024-01-01T00:00:00Z'],
        ['yyyyMMdd', '20240101'],
        ['empty', ''],
        ['bad', '2024-02-30'],
      ];
    case 'guid':
      return [
        ['32-hex', GUID_32],
        ['hyphenated', HYPHENATED_GUID],
        ['braces', `{${HYPHENATED_GUID}}`],
        ['bad', 'not-a-guid'],
      ];
    case 'enum':
      return [
        ...kind.values.map((v): [string, string] => [v || 'empty', v]),
        ['lower-case', (kind.values.find(Boolean) ?? 'x').toLowerCase()],
        ['bad', 'NoSuchValue'],
      ];
    case 'string':
      return [
        ['text', 'sample text'],
        ['empty', ''],
        ['unicode', 'Grüße ✓'],
      ];
  }
}

function arrayItems(kind: ScalarKind): [string, string] {
  if (kind.kind === 'guid') return [GUID_32, OTHER_GUID];
  if (kind.kind === 'integer') return ['101', '102'];
  const forms = scalarForms(kind).filter(([name]) => name !== 'bad' && name !== 'empty');
  return [forms[0]![1], (forms[1] ?? forms[0]!)[1]];
}

/** `Field=value` pairs of every form of one query field. */
function queryForms(field: FieldSpec): [string, string][] {
  const q = (value: string) => `${encodeURIComponent(field.name)}=${encodeURIComponent(value)}`;
  if (field.type.kind !== 'array') return scalarForms(field.type).map(([name, value]) => [name, q(value)]);
  const [a, b] = arrayItems(field.type.items);
  const bad = scalarForms(field.type.items).find(([name]) => name === 'bad')?.[1] ?? 'x';
  return [
    ['comma', q(`${a},${b}`)],
    ['brackets', q(`[${a},${b}]`)],
    ['repeated', `${q(a)}&${q(b)}`],
    ['one', q(a)],
    ['empty', q('')],
    ['bad-item', q(`${a},${bad}`)],
  ];
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

function withSuffix(url: string, suffix: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url + suffix : url.slice(0, at) + suffix + url.slice(at);
}

function withoutQueryKey(url: string, name: string): string {
  const [path, query = ''] = url.split('?') as [string, string?];
  const kept = query.split('&').filter((p) => p && p.split('=')[0]!.toLowerCase() !== name.toLowerCase());
  return kept.length ? `${path}?${kept.join('&')}` : path;
}

export function batteryRequests(options: BatteryOptions = {}): ReplayRequest[] {
  const companyId = options.companyId ?? 1;
  const formats = formatRegistry();
  const out: ReplayRequest[] = [];
  const add = (rule: string, request: ContractRequest, extra: Partial<ReplayRequest> = {}) =>
    out.push({
      method: request.method,
      url: request.url,
      headers: { ...request.headers },
      body: request.body,
      anonymous: request.key === false,
      origin: { source: 'battery', rule },
      ...extra,
    });

  for (const op of operationRequests(companyId)) {
    const id = op.operationId;
    if (op.sample) add(`op:${id}:200`, op.sample);
    if (op.bad) add(`op:${id}:400`, op.bad);
    if (op.sample) add(op.needsKey ? `op:${id}:401` : `op:${id}:anonymous`, { ...op.sample, key: false });
    if (!op.sample) continue;
    const plan = op.record.binding;
    const reserved = new Set<string>(Object.values(Keywords));

    if (op.method === 'GET') {
      const sample = op.sample;
      // Response formats and route spellings.
      const get = (rule: string, url: string, headers?: Record<string, string>) =>
        add(`${rule.split(':')[0]}:${id}:${rule.split(':').slice(1).join(':')}`, { method: 'GET', url, headers });
      formatGetRequests(formats, op, add);
      get(
        'route:upper-case',
        sample.url.replace(/^[^?]*/, (p) => p.toUpperCase().replace(/\{[^}]*\}/g, (v) => v)),
      );
      get('route:empty-segments', sample.url.replace(/^\//, '//').replace(/^([^?]*?)\/([^/?]*)(\?|$)/, '$1//$2$3'));
      get('route:trailing-slash', withSuffix(sample.url, '/'));
      get('binder:unknown-key', withQuery(sample.url, 'NoSuchKey=1'));
      add(`http:${id}:HEAD`, { method: 'HEAD', url: sample.url });
      // Every form of every query field, alone on the sample request.
      const booleans = [...plan.query.values()].filter((f) => f.type.kind === 'boolean');
      for (const field of plan.query.values()) {
        if (reserved.has(field.name.toLowerCase())) continue;
        const base = withoutQueryKey(sample.url, field.name);
        for (const [form, pair] of queryForms(field)) get(`binder:${field.name}=${form}`, withQuery(base, pair));
        get(
          `binder:${field.name}:lower-case-key`,
          withQuery(
            base,
            queryForms(field)[0]![1].replace(/^[^=]+/, (k) => k.toLowerCase()),
          ),
        );
      }
      if (booleans.length)
        get(
          'binder:all-booleans-true',
          withQuery(
            sample.url,
            [
              ...booleans.map((f) => `${f.name}=true`),
              ...[...plan.query.values()]
                .filter((f) => f.type.kind === 'date')
                .map((f, i) => `${f.name}=${i === 0 ? '2024-01-01' : '2024-03-31'}`),
            ].join('&'),
          ),
        );
    } else if (plan.body) {
      // JSON bodies: lower-case property names, each field's JSON forms, an unknown property.
      const sample = JSON.parse(op.sample.body ?? '{}') as Record<string, unknown>;
      const post = (rule: string, body: string, contentType = 'application/json') =>
        add(`${rule.split(':')[0]}:${id}:${rule.split(':').slice(1).join(':')}`, {
          method: 'POST',
          url: op.sample!.url,
          headers: { 'Content-Type': contentType },
          body,
        });
      post(
        'binder:lower-case-names',
        JSON.stringify(Object.fromEntries(Object.entries(sample).map(([k, v]) => [k.toLowerCase(), v]))),
      );
      post('binder:unknown-property', JSON.stringify({ ...sample, NoSuchProperty: 1 }));
      post(
        'binder:form-urlencoded',
        new URLSearchParams(Object.entries(sample).map(([k, v]) => [k, String(v)])).toString(),
        'application/x-www-form-urlencoded',
      );
      post('format:format=xml', JSON.stringify(sample));
      out.at(-1)!.url = withQuery(op.sample.url, 'format=xml');
      if (op.record.predefined) formatBodyRequests(formats, op, add);
      else post('binder:empty-body', '');
      for (const field of plan.body.values()) {
        const forms: [string, unknown][] =
          field.type.kind === 'array'
            ? [
                [
                  'array',
                  arrayItems(field.type.items).map((v) =>
                    field.type.kind === 'array' && field.type.items.kind === 'integer' ? Number(v) : v,
                  ),
                ],
                ['empty-array', []],
                ['string', arrayItems(field.type.items).join(',')],
              ]
            : scalarForms(field.type).map(([name, value]): [string, unknown] => [
                name,
                field.type.kind === 'integer' && /^-?\d+$/.test(value)
                  ? Number(value)
                  : field.type.kind === 'boolean' && /^(true|false)$/i.test(value) && name !== 'FALSE'
                    ? value === 'true'
                    : value,
              ]);
        for (const [form, value] of forms)
          post(`binder:${field.name}=${form}`, JSON.stringify({ ...sample, [field.name]: value }));
      }
    }
  }
  for (const [rule, request] of Object.entries(WSDL_REQUESTS)) add(rule, request);
  add('wsdl:no-query', { method: 'GET', url: '/soap12' });
  for (const [rule, request] of Object.entries(wireRequests(companyId))) add(rule, request);
  return out;
}

export function readBattery(options: BatteryOptions): SourceResult {
  return { requests: batteryRequests(options), issues: [] };
}
