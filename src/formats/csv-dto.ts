/**
 * A DTO as CSV (`text/csv`), written and read as a real ServiceStack 4.5.14 host's CsvSerializer did.
 *
 * Written: a header row of the DTO type's properties in declaration order (null ones included), then one row of their
 * values (a list of DTOs, a batch's answer: one row each): strings as they are, nested objects and lists as JSV, nulls
 * empty; CRLF after every row (csv-stringify). A cell is quoted, its `"` doubled, when it holds `,`, `"`, CR or LF or
 * starts with `{` or `[` (so `"{}"`, `"[101]"`, `"line\nbreak"`), as 4.5 quoted them: an unquoted line break would
 * split the row. One deliberate difference: a text cell a spreadsheet would run as a formula (leading `= + - @`, tab
 * or CR) gets a leading apostrophe, as the report's own CSV does (OWASP CSV injection). `writeCsvRows` is the one
 * place this rule lives.
 *
 * Read (request bodies of `/csv/reply/{Op}`, what CsvServiceClient sends): a header row naming properties (any case,
 * any order; unknown names ignored, a BOM skipped), then data rows; a single request reads the first. An unquoted
 * empty cell is absent, a quoted one (`""`) the empty string. Cells stay text: the binder reads them as it reads
 * JSV values (`"[10,20]"`, `True`, `2025-01-01`). No data row, or a row with more cells than the header, is a 400, as
 * 4.5 refused them; a batch (`/csv/reply/{Op}[]`) reads every data row, none being an empty batch.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { dtoProperties } from '../contract/dto-properties.ts';
import { appError } from '../errors/app-error.ts';
import { applyJsConfig, type JsConfig } from './jsconfig.ts';
import { serviceJsvJsConfig, toJsv } from './jsv.ts';
import { framedList } from './framed-list.ts';
import type { FormatEntry, ReadContext, WriteContext, Written } from './registry.ts';

export const CSV_MEDIA_TYPE = 'text/csv';

/**
 * 4.5's quoting beyond RFC 4180's delimiter and quote: any line break, and a leading `{` or `[` (a JSV object or list).
 */
const QUOTED_AS_45 = [/[\r\n]/, /^[{[]/];
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return FORMULA_START.test(value) ? `'${value}` : value;
  return toJsv(value);
}

/** Rows of cells (header first) as 4.5 wrote them, with the formula guard: the one CSV writer rule. */
export function writeCsvRows(rows: readonly (readonly unknown[])[]): string {
  return stringify(
    rows.map((row) => row.map(cell)),
    { record_delimiter: 'windows', quoted_match: QUOTED_AS_45 },
  );
}

function asRecord(dto: unknown): Record<string, unknown> {
  return typeof dto === 'object' && dto !== null ? (dto as Record<string, unknown>) : {};
}

/** The header row's names: the DTO type's properties (from openapi/), else the first record's keys. */
const columnsOf = (properties: readonly string[], first: Record<string, unknown>) =>
  properties.length ? properties : Object.keys(first);

/** A record's cells under `names`; `jsconfig` shapes the cells' values (their JSV names and dates). */
const rowOf = (record: Record<string, unknown>, names: readonly string[], jsconfig?: JsConfig) =>
  names.map((name) => (jsconfig ? applyJsConfig(record[name], jsconfig) : record[name]));

/**
 * `properties`: the DTO type's property names in declaration order (from openapi/). A list writes one row per item;
 * an empty list nothing at all (4.5.14 answered an empty batch with an empty body). `jsconfig` shapes the cells'
 * values, not the header row, as 4.5.14 applied `?jsconfig=` to CSV.
 */
export function dtoToCsv(dto: unknown, properties: readonly string[], jsconfig?: JsConfig): string {
  const records = Array.isArray(dto) ? dto.map(asRecord) : [asRecord(dto)];
  if (!records.length) return '';
  const names = columnsOf(properties, records[0]!);
  return writeCsvRows([names, ...records.map((record) => rowOf(record, names, jsconfig))]);
}

/** Every data row of a CSV body, keyed by its header; throws a 400 naming the DTO on what 4.5 could not read. */
export function readCsvRows(body: string, ctx: ReadContext): Record<string, string>[] {
  const fail = (reason: string): never => {
    throw appError('BodyUnreadableAs', { mediaType: CSV_MEDIA_TYPE, dto: ctx.operation.requestDto, reason });
  };
  let rows: (string | null)[][];
  try {
    rows = parse(body, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      // An unquoted empty cell is no value; a quoted one is the empty string.
      cast: (value, context) => (context.quoting || value !== '' ? value : null),
    }) as (string | null)[][];
  } catch (error) {
    return fail((error as Error).message);
  }
  const [header, ...data] = rows;
  if (!header || header.every((name) => !name)) return fail('the body has no header row');
  const records = data.map((row, index) => {
    if (row.length > header.length) fail(`row ${index + 2} has ${row.length} cells, the header ${header.length}`);
    const record: Record<string, string> = {};
    row.forEach((value, i) => {
      const name = header[i];
      if (name && value !== null) record[name] = value;
    });
    return record;
  });
  return records;
}

/** The first data row of a CSV body: one request DTO's properties. */
export function readCsvDto(body: string, ctx: ReadContext): Record<string, unknown> {
  const [first] = readCsvRows(body, ctx);
  if (!first) {
    throw appError('BodyUnreadableAs', {
      mediaType: CSV_MEDIA_TYPE,
      dto: ctx.operation.requestDto,
      reason: 'the body has no data row',
    });
  }
  return first;
}

/** A CSV body as answered: `text/csv`, the service's own answer as the download `<RequestDto>.csv` when not empty. */
function csvWritten(body: string, ctx: WriteContext): Written {
  // A batch's download is named as 4.5 named it, `EchoRequest[].csv`; an empty answer is no download.
  const name = ctx.operation && `${ctx.operation.requestDto}${ctx.operation.batch ? '[]' : ''}.csv`;
  return {
    body,
    contentType: CSV_MEDIA_TYPE,
    headers: ctx.inService && name && body ? { 'Content-Disposition': `attachment;filename=${name}` } : undefined,
  };
}

/**
 * CSV's DTO form, merged with the report's CSV entry (src/formats/report-formats.ts) into one `csv` format: `text/csv`
 * as 4.5 sent it, and the service's own answers as the download `<RequestDto>.csv` (not errors raised before it);
 * `/csv/reply/{Op}` bodies read as above.
 */
export const csvDtoForm: Pick<FormatEntry, 'writeDto' | 'listWriter' | 'predefinedRoutes' | 'read' | 'readList'> = {
  predefinedRoutes: true,
  writeDto: (dto, ctx) => csvWritten(dtoToCsv(dto, dtoProperties(ctx.dtoType), serviceJsvJsConfig(ctx)), ctx),
  // A list is its header row, then each item's row (csv-stringify writes each record alone, CRLF after it).
  listWriter: (first, ctx) => {
    const jsconfig = serviceJsvJsConfig(ctx);
    const names = columnsOf(dtoProperties(ctx.dtoType), asRecord(first));
    return framedList(
      { open: writeCsvRows([names]), separator: '', close: '' },
      (dto) => writeCsvRows([rowOf(asRecord(dto), names, jsconfig)]),
      (body) => csvWritten(body, ctx),
    );
  },
  read: readCsvDto,
  // `/csv/reply/{Op}[]` bodies: a header row, then one row per request (CsvServiceClient's SendAll); none is an empty
  // batch.
  readList: readCsvRows,
};
