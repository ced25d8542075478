/**
 * CSV cell by cell, read strictly (csv-parse with no relaxing): every record must have the header's number of cells
 * and quotes must be well formed, so a cell whose line break was written unquoted (the row splits, and a client reads
 * half a value) does not parse: the body is then a difference of its own (`format()`, see registry.ts), not a quietly
 * shorter row. Rows are keyed by the header row, so a cell's path names its column (`$.rows[2]['Jan 2024']`); a cell
 * holding a nested object or list (ServiceStack's CSV writes those as JSV) is read as a tree with the service's JSV
 * reader, so `$..BuildTime` reaches into it.
 */
import { parse } from 'csv-parse/sync';
import { parseJsv } from '../../../../../src/tooling-exports.ts';
import type { BodyComparer } from './comparer.ts';

/** A `{…}` or `[…]` cell read as JSV; any other cell (or one that is not JSV after all) stays text. */
function cellValue(cell: string): unknown {
  if (!/^[{[]/.test(cell)) return cell;
  try {
    return parseJsv(cell);
  } catch {
    return cell;
  }
}

/**
 * Every line break ends a record unless quoted, as a CSV client reads it: csv-parse would otherwise take the first
 * row's CRLF as the only delimiter and keep a bare LF inside an unquoted cell.
 */
const STRICT = {
  record_delimiter: ['\r\n', '\n', '\r'],
  relax_column_count: false,
  relax_quotes: false,
  skip_empty_lines: false,
} as const;

export function readCsvStrictly(body: string): string[][] {
  return parse(body.replace(/^\uFEFF/, ''), {
    ...STRICT,
    record_delimiter: [...STRICT.record_delimiter],
  }) as string[][];
}

export const csvComparer: BodyComparer = {
  name: 'csv',
  accepts: (mediaType) => mediaType === 'text/csv',
  parse(body) {
    const [header = [], ...rows] = readCsvStrictly(body);
    const uniqueHeader = new Set(header).size === header.length && header.every((h) => h !== '');
    const tree = {
      header,
      rows: rows.map((row) =>
        uniqueHeader ? Object.fromEntries(row.map((cell, i) => [header[i]!, cellValue(cell)])) : row.map(cellValue),
      ),
    };
    return { tree, pretty: body };
  },
};
