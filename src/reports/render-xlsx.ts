/**
 * FlatReport → an XLSX workbook (exceljs): one sheet in the wide form of pnl-semantics §3 (the CSV's columns),
 * amounts as numbers with a money format, section totals and computed rows bold, header row bold and frozen,
 * account names indented by level. Workbook properties carry the title and company; the range and options
 * sit in the sheet's header/footer so the table itself starts at row 1.
 * exceljs is loaded on the first download, not at start-up (it is the largest module of the service).
 */
import { appError } from '../errors/app-error.ts';
import type { FlatReport } from './flat-pnl.ts';
import { centsToAmount } from './money.ts';
import { CSV_FIXED_COLUMNS } from './render-csv.ts';
import type { ReportMeta } from './report-meta.ts';

/** Thousands separators, 2 decimals, negatives in parentheses (the accountants' form). */
export const MONEY_FORMAT = '#,##0.00;(#,##0.00);0.00';

/** XLSX's (Excel's) column limit: a sheet has at most 16,384 columns (XFD). */
export const XLSX_MAX_COLUMNS = 16_384;

export async function renderXlsx(report: FlatReport, meta: ReportMeta): Promise<Buffer> {
  const width = CSV_FIXED_COLUMNS.length + report.columnNames.length;
  if (width > XLSX_MAX_COLUMNS) {
    throw appError('XlsxTooWide', { width, max: XLSX_MAX_COLUMNS });
  }
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Reporting Service';
  workbook.title = `${meta.title} - ${meta.companyName}`;
  workbook.subject = `${meta.from} to ${meta.to}`;
  workbook.description = meta.basis.join('; ');
  const sheet = workbook.addWorksheet(meta.title.slice(0, 31), {
    views: [{ state: 'frozen', xSplit: 0, ySplit: 1 }],
    headerFooter: { oddHeader: `&L${meta.companyName.replace(/&/g, '&&')}&C${meta.title}&R${meta.from} to ${meta.to}` },
  });
  const fixed = CSV_FIXED_COLUMNS.length;
  sheet.columns = [
    ...CSV_FIXED_COLUMNS.map((name) => ({
      header: name,
      key: name,
      width: name === 'Name' ? 32 : name === 'FullName' ? 36 : 14,
    })),
    ...report.columnNames.map((name) => ({
      header: name,
      key: `c:${name}`,
      width: 14,
      style: { numFmt: MONEY_FORMAT },
    })),
  ];
  sheet.getRow(1).font = { bold: true };
  for (const row of report.rows) {
    const added = sheet.addRow([
      row.rowType,
      row.section,
      row.level,
      row.accountNumber ?? '',
      row.rowName,
      row.fullName,
      ...row.cents.map(centsToAmount),
    ]);
    added.getCell(5).alignment = { indent: row.rowType === 'Account' ? row.level + 1 : 0 };
    for (let i = 1; i <= report.columnNames.length; i++) added.getCell(fixed + i).numFmt = MONEY_FORMAT;
    if (row.isTotal) {
      added.font = { bold: true };
      if (row.rowType === 'Computed') {
        added.eachCell({ includeEmpty: true }, (cell) => (cell.border = { top: { style: 'thin' } }));
      }
    }
  }
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: fixed + report.columnNames.length } };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
