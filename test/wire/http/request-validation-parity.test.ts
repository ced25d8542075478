/**
 * The compiled request validators (src/http/request-validation.ts) against their reference, express-openapi-validator's
 * own middleware: a battery from every operation's binding plan (each field valid and in each invalid form, missing
 * and bad fields, batches with a bad item, anonymous calls, HEAD, If-None-Match) is sent to both apps over one store;
 * every answer must have the same status, Content-Type, ETag and body.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { FieldKind, ScalarKind } from '../../../src/contract/binding-plan.ts';
import { contractOperations, type OperationRecord } from '../../../src/contract/operations.ts';
import { createTestApp, NO_KEY_HEADER, type TestApp } from '../../support/test-app.ts';

interface Case {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  anonymous?: boolean;
  headers?: Record<string, string>;
}

const GUID = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';

/** Valid and invalid query/form text for one scalar. */
function scalarTexts(kind: ScalarKind): { valid: string; invalid: string[] } {
  switch (kind.kind) {
    case 'string':
      return { valid: 'hello', invalid: [] };
    case 'boolean':
      return { valid: 'true', invalid: ['maybe', 'yes'] };
    case 'integer':
      return { valid: '1', invalid: ['abc', '01', '2147483648', '1.5'] };
    case 'date':
      return { valid: '2024-01-01', invalid: ['2024-02-30', 'soon'] };
    case 'guid':
      return { valid: GUID, invalid: ['xyz'] };
    case 'enum':
      return { valid: kind.values.at(-1)!, invalid: ['Nope', ' '] };
  }
}

function fieldTexts(kind: FieldKind): { valid: string; invalid: string[] } {
  if (kind.kind !== 'array') return scalarTexts(kind);
  const item = scalarTexts(kind.items);
  return { valid: `${item.valid},${item.valid}`, invalid: item.invalid.map((bad) => `${item.valid},${bad}`) };
}

/** Valid and invalid JSON values for one field of a body. */
function jsonValues(kind: FieldKind): { valid: unknown; invalid: unknown[] } {
  const common = [null, { nested: true }];
  switch (kind.kind) {
    case 'array': {
      const item = jsonValues(kind.items);
      return { valid: [item.valid], invalid: [...item.invalid.map((bad) => [item.valid, bad]), 'x,y', {}] };
    }
    case 'string':
      return { valid: 'hello', invalid: [5, true, [1], ...common] };
    case 'boolean':
      return { valid: true, invalid: [2, 'maybe', 'true', ...common] };
    case 'integer':
      return { valid: 1, invalid: ['7', 'x', 1.5, 2 ** 31, true, ...common] };
    case 'date':
      return { valid: '/Date(1704067200000)/', invalid: ['2024-02-30', 5, ...common] };
    case 'guid':
      return { valid: GUID, invalid: ['xyz', 5, ...common] };
    case 'enum':
      return { valid: kind.values.at(-1), invalid: ['Nope', 5, ...common] };
  }
}

/** The path of `op` with its variables filled in. */
function pathOf(op: OperationRecord, values: Record<string, string> = {}): string {
  return op.template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'hello'));
}

function queryCases(op: OperationRecord, pathValues: Record<string, string>): Case[] {
  const fields = [...op.binding.query.values()];
  const required = fields.filter((f) => f.name === 'CompanyId');
  const base = Object.fromEntries(required.map((f) => [f.name, fieldTexts(f.type).valid]));
  const full = Object.fromEntries(fields.map((f) => [f.name, fieldTexts(f.type).valid]));
  const path = pathOf(op, pathValues);
  const cases: Case[] = [
    { method: op.method, path, query: base },
    { method: op.method, path, query: full },
    { method: op.method, path, query: {} },
    { method: op.method, path, query: { callback: 'cb', format: 'json' } },
    { method: op.method, path, query: { callback: 'x'.repeat(129) } },
  ];
  const allBad: Record<string, string> = {};
  for (const field of fields) {
    for (const bad of fieldTexts(field.type).invalid) {
      cases.push({ method: op.method, path, query: { ...base, [field.name]: bad } });
      cases.push({ method: op.method, path, query: { [field.name.toLowerCase()]: bad } });
      allBad[field.name] ??= bad;
    }
  }
  if (Object.keys(allBad).length) cases.push({ method: op.method, path, query: allBad });
  // Header parameters (If-None-Match on the reports): any text is valid; a held answer is 304 through both.
  for (const value of ['*', 'W/"x"', 'junk'])
    cases.push({ method: op.method, path, query: base, headers: { 'If-None-Match': value } });
  // The same requests without a key, and as HEAD.
  const extra: Case[] = cases.slice(0, 12).map((c) => ({ ...c, anonymous: true }));
  if (op.method === 'GET') extra.push(...cases.slice(0, 12).map((c) => ({ ...c, method: 'HEAD' })));
  return [...cases, ...extra];
}

function bodyCases(op: OperationRecord): Case[] {
  const plan = op.binding.body!;
  const fields = [...plan.values()];
  const required = fields.filter((f) => f.name === 'CompanyId');
  const base = Object.fromEntries(required.map((f) => [f.name, jsonValues(f.type).valid]));
  const full = Object.fromEntries(fields.map((f) => [f.name, jsonValues(f.type).valid]));
  const bodies: unknown[] = [base, full, {}, { Unknown: 1 }];
  const allBad: Record<string, unknown> = {};
  for (const field of fields) {
    for (const bad of jsonValues(field.type).invalid) {
      bodies.push({ ...base, [field.name]: bad });
      allBad[field.name] ??= bad;
    }
  }
  bodies.push(allBad);
  const path = pathOf(op);
  if (!op.batch) {
    const cases: Case[] = bodies.map((body) => ({ method: op.method, path, body }));
    // Form fields, bound as the query is.
    for (const field of fields) {
      for (const bad of fieldTexts(field.type).invalid) {
        const form = Object.fromEntries(required.map((f) => [f.name, fieldTexts(f.type).valid]));
        cases.push({ method: op.method, path, body: new URLSearchParams({ ...form, [field.name]: bad }).toString() });
      }
    }
    return [...cases, ...cases.slice(0, 8).map((c) => ({ ...c, anonymous: true }))];
  }
  const cases: Case[] = [
    { method: op.method, path, body: [] },
    { method: op.method, path, body: [base, full] },
    { method: op.method, path, body: base },
    ...bodies.slice(2).flatMap((bad) => [
      { method: op.method, path, body: [base, bad] },
      { method: op.method, path, body: [bad, base] },
    ]),
  ];
  return [...cases, ...cases.slice(0, 6).map((c) => ({ ...c, anonymous: true }))];
}

function send(app: TestApp, c: Case) {
  const method = c.method.toLowerCase() as 'get' | 'head' | 'post';
  let req = request(app.app)[method](c.path).set('Host', 'parity.test');
  if (c.anonymous) req = req.set(NO_KEY_HEADER, '1');
  if (c.headers) req = req.set(c.headers);
  if (c.query) req = req.query(c.query);
  if (typeof c.body === 'string') req = req.type('form').send(c.body);
  else if (c.body !== undefined) req = req.type('json').send(JSON.stringify(c.body));
  return req;
}

/** A report's BuildTime is its own measurement, different in every answer. */
const normalised = (text: string) => text.replace(/"BuildTime":\d+/g, '"BuildTime":0');

describe('request validation: the compiled validators answer as express-openapi-validator does', function () {
  this.timeout(300_000);
  let fast: TestApp;
  let reference: TestApp;
  let token = '';
  before(async () => {
    fast = await createTestApp();
    reference = await createTestApp({ store: fast.store, referenceRequestValidation: true });
    const report = await request(fast.app).get('/v1/Reporting/ProfitAndLoss/Flat').query({ CompanyId: 1 });
    token = String((report.body as { Url: string }).Url.split('/').at(-1));
  });
  after(async () => fast?.close());

  it('every operation: the same status, Content-Type and body for every request of the battery', async () => {
    const cases: Case[] = [];
    for (const op of contractOperations().all) {
      if (op.binding.body) {
        cases.push(...bodyCases(op));
        continue;
      }
      const pathValues: Record<string, string> = op.template.includes('{Token}') ? { Token: token } : {};
      cases.push(...queryCases(op, pathValues));
      for (const field of op.binding.path) {
        const values = field.name === 'Token' ? [token, 'abc', 'a.b', `${token}x`, 'x'.repeat(5000)] : ['', ' ', '%'];
        for (const value of values) cases.push({ method: op.method, path: pathOf(op, { [field.name]: value }) });
      }
    }
    const codes = new Set<string>();
    let refused = 0;
    let notModified = 0;
    for (const c of cases) {
      const [a, b] = [await send(fast, c), await send(reference, c)];
      const label =
        `${c.method} ${c.path} ${JSON.stringify(c.query ?? c.body ?? '')}${c.anonymous ? ' (no key)' : ''}` +
        (c.headers ? ` ${JSON.stringify(c.headers)}` : '');
      expect(a.status, label).to.equal(b.status);
      expect(a.headers['content-type'], label).to.equal(b.headers['content-type']);
      expect(a.headers.etag, label).to.equal(b.headers.etag);
      expect(normalised(a.text ?? ''), label).to.equal(normalised(b.text ?? ''));
      if (a.status === 400) refused++;
      if (a.status === 304) notModified++;
      for (const e of (a.body as { ResponseStatus?: { Errors?: { ErrorCode: string }[] } })?.ResponseStatus?.Errors ??
        [])
        codes.add(e.ErrorCode);
    }
    // The battery reaches the validators, not only the binder: each kind of contract error came back.
    expect([...codes]).to.include.members(['NotEmpty', 'Enum', 'Pattern', 'MaxLength', 'SerializationException']);
    expect(refused).to.be.greaterThan(cases.length / 3);
    expect(notModified, 'If-None-Match: * on every report operation').to.be.at.least(3);
  });
});
