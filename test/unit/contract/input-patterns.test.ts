/**
 * The contract's input patterns say exactly what the binder accepts, so conformance tools (Prism) and generated
 * validators (zod) neither refuse a value the server takes nor admit one it refuses; patterns say `[0-9]`, never `\d`
 * (which Python-based tools read as any Unicode digit); every int32 field is bounded; and the array limit is the
 * server's default MAX_ARRAY_ITEMS, stated as `x-max-items` (a `maxItems: 1000` made tools build 1000-item cases and
 * 1000-element tuple types).
 */
import { expect } from 'chai';
import { loadOpenApiDocument } from '../../../src/contract/openapi-document.ts';
import { parseLegacyCalendarDate } from '../../../src/scalars/dates.ts';
import { parseGuid } from '../../../src/scalars/guids.ts';
import { configDefaults, loadConfig } from '../../../src/config.ts';

type Schema = {
  pattern?: string;
  maxItems?: number;
  'x-max-items'?: number;
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  items?: unknown;
};
const doc = loadOpenApiDocument();
const schemas = doc.components!.schemas as Record<string, Schema>;
const pattern = (name: string) => new RegExp(schemas[name]!.pattern!);
const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('contract input patterns', () => {
  it(
    'LegacyDateInput admits exactly the dates the binder reads (every day 0098-0101, 1899-1901, 1999-2101, ' +
      '2399-2401, 9999 with day 0-32, month 0-13)',
    () => {
      const date = pattern('LegacyDateInput');
      const years = [
        [98, 101],
        [1899, 1901],
        [1999, 2101],
        [2399, 2401],
        [9999, 9999],
      ].flatMap(([a, b]) => Array.from({ length: b! - a! + 1 }, (_, i) => a! + i));
      let checked = 0;
      for (const y of years) {
        for (let m = 0; m <= 13; m++) {
          for (let d = 0; d <= 32; d++) {
            for (const text of [`${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, `${pad(y, 4)}${pad(m, 2)}${pad(d, 2)}`]) {
              expect(date.test(text), text).to.equal(parseLegacyCalendarDate(text) !== undefined);
              checked++;
            }
          }
        }
      }
      expect(checked).to.be.greaterThan(100_000);
      expect(date.test('2025-13-45')).to.equal(false);
    },
  );

  it('LegacyDateInput agrees with the binder on times, offsets and /Date()/ forms', () => {
    const date = pattern('LegacyDateInput');
    const samples = [
      '2024-02-29T00:00:00Z',
      '2024-02-29 23:59:59.123',
      '2024-01-31T10:00',
      '2024-01-31T10:00+01:00',
      '2024-01-31T10:00-0500',
      '2024-01-31T24:00',
      '2024-01-31T10:60',
      '2024-01-31T10:00:60',
      '2024-01-31T',
      '2024-01-31Z',
      '24-01-31',
      '/Date(1704067200000)/',
      '/Date(-1)/',
      '/Date(1704067200000+0100)/',
      '/Date(1704067200000-0000)/',
      '\\/Date(1704067200000)\\/',
      '/Date(1704067200000+01)/',
      '/Date()/',
      '/Date(abc)/',
      'Date(1)',
      '/Date(1.5)/',
      '',
      'yesterday',
      '2024013',
      '202401311',
    ];
    for (const text of samples) expect(date.test(text), text).to.equal(parseLegacyCalendarDate(text) !== undefined);
  });

  it(
    'the binder also reads the other forms ServiceStack 4.5 read (the description lists them; the pattern keeps ' +
      'the canonical ones)',
    () => {
      for (const text of [
        '2024-1-31',
        '2025/01/02',
        '01/02/2025',
        '1/2/2025',
        'Jan 1 2025',
        '2 Feb 2025',
        '2025-01-01+02:00',
      ]) {
        expect(parseLegacyCalendarDate(text), text).to.not.equal(undefined);
      }
    },
  );

  it('GuidInput admits exactly the GUID forms the binder reads', () => {
    const guid = pattern('GuidInput');
    const n = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
    const h = '0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9';
    const samples = [
      n,
      n.toUpperCase(),
      h,
      h.toLowerCase(),
      `{${n}}`,
      `{${h}}`,
      `(${h})`,
      `(${n})`,
      `{${h})`,
      `${n}0`,
      n.slice(1),
      `${h.replace(/-/g, '').slice(0, 31)}g`,
      '0A1B2C3D4E5F-6071-8293-A4B5C6D7E8F9',
      `{{${n}}}`,
      '',
      `[${n}]`,
    ];
    for (const text of samples) expect(guid.test(text), text).to.equal(parseGuid(text) !== undefined);
  });

  it(
    'Locations and Filters state the default MAX_ARRAY_ITEMS as x-max-items (no maxItems), on the query and in ' +
      'the body',
    () => {
      const saved = process.env.MAX_ARRAY_ITEMS;
      delete process.env.MAX_ARRAY_ITEMS;
      const configured = loadConfig().maxArrayItems;
      if (saved !== undefined) process.env.MAX_ARRAY_ITEMS = saved;
      const params = doc.components!.parameters as Record<string, { schema: Schema; description?: string }>;
      const body = schemas.GetFlatRequest as { properties: Record<string, Schema & { description?: string }> };
      const arrays = [
        params.LocationsParam!.schema,
        params.FiltersParam!.schema,
        body.properties.Locations!,
        body.properties.Filters!,
      ];
      for (const schema of arrays) {
        expect(schema['x-max-items']).to.equal(configured);
        expect(schema['x-max-items']).to.equal(configDefaults.maxArrayItems);
        expect(schema).to.not.have.property('maxItems');
      }
      for (const description of [
        params.LocationsParam!.description,
        params.FiltersParam!.description,
        body.properties.Locations!.description,
        body.properties.Filters!.description,
      ]) {
        expect(description).to.match(/MAX_ARRAY_ITEMS/);
      }
    },
  );

  it('no pattern uses \\d, and every int32 field declares its minimum and maximum', () => {
    const text = JSON.stringify(doc);
    const patterns = [...text.matchAll(/"pattern":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
    expect(patterns.length).to.be.greaterThan(3);
    for (const p of patterns) expect(p, p).to.not.match(/\\d/);
    const int32: Schema[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      const schema = node as Schema;
      if (schema.format === 'int32') int32.push(schema);
      Object.values(node).forEach(walk);
    };
    walk(doc);
    expect(int32.length).to.be.greaterThan(5);
    for (const schema of int32) {
      expect(schema.minimum, JSON.stringify(schema)).to.be.a('number').and.at.least(-2147483648);
      expect(schema.maximum, JSON.stringify(schema)).to.equal(2147483647);
    }
  });
});
