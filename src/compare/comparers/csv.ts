/** CSV cell by cell (csv-parse): rows keyed by the header row, so a cell's path names its column (`$.rows[2]['Jan 2024']`). */
import { parse } from 'csv-parse/sync';
import type { BodyComparer } from './comparer.ts';

export const csvComparer: BodyComparer = {
  name: 'csv',
  accepts: (mediaType) => mediaType === 'text/csv',
  parse(body) {
    const records = parse(body.replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: true }) as string[][];
    const [header = [], ...rows] = records;
    const uniqueHeader = new Set(header).size === header.length && header.every((h) => h !== '');
    const tree = {
      header,
      rows: rows.map((row) => (uniqueHeader ? Object.fromEntries(row.map((cell, i) => [header[i] ?? String(i), cell])) : row)),
    };
    return { tree, pretty: body };
  },
};
