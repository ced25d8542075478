/**
 * A DTO as CSV (`text/csv`), as a real ServiceStack 4.5.14 host's CsvSerializer wrote one: a header row of the DTO
 * type's properties in declaration order (null ones included), then one row of their values: strings as they are,
 * nested objects and lists as JSV, nulls empty; RFC 4180 quoting and CRLF after every row (csv-stringify).
 * One deliberate difference: a text cell a spreadsheet would run as a formula (leading `= + - @`, tab or CR) gets a
 * leading apostrophe, as the report's own CSV does (OWASP CSV injection).
 */
import { stringify } from 'csv-stringify/sync';
import { dtoProperties } from '../contract/dto-properties.ts';
import { toJsv } from './jsv.ts';
import type { FormatEntry } from './registry.ts';

export const CSV_MEDIA_TYPE = 'text/csv';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return toJsv(value);
}

/** `properties`: the DTO type's property names in declaration order (from openapi/). */
export function dtoToCsv(dto: unknown, properties: readonly string[]): string {
  const record = typeof dto === 'object' && dto !== null ? (dto as Record<string, unknown>) : {};
  const names = properties.length ? properties : Object.keys(record);
  return stringify([names, names.map((name) => cell(record[name]))], { record_delimiter: 'windows' });
}

/**
 * CSV's DTO form, merged with the report's CSV entry (src/formats/report-formats.ts) into one `csv` format: `text/csv`
 * as 4.5 sent it, and the service's own answers as the download `<RequestDto>.csv` (not errors raised before it).
 */
export const csvDtoForm: Pick<FormatEntry, 'writeDto' | 'predefinedRoutes'> = {
  predefinedRoutes: true,
  writeDto: (dto, ctx) => ({
    body: dtoToCsv(dto, dtoProperties(ctx.dtoType)),
    contentType: CSV_MEDIA_TYPE,
    headers: ctx.inService && ctx.operation ? { 'Content-Disposition': `attachment;filename=${ctx.operation.requestDto}.csv` } : undefined,
  }),
};
