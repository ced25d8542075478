/** FlatReport → the contract's ReportModel (the JSON renderer). */
import type { ReportModel, ReportRow } from '../contract/dtos.ts';
import type { FlatReport } from './flat-pnl.ts';
import { centsToAmount } from './money.ts';

export const REPORT_HEADER = 'Profit and Loss';

export function toReportModel(report: FlatReport, buildTimeMs: number): ReportModel {
  return {
    ReportHeader: REPORT_HEADER,
    BuildTime: Math.round(buildTimeMs),
    ColumnNames: report.columnNames,
    Rows: report.rows.map(
      (row): ReportRow => ({
        RowType: row.rowType,
        Section: row.section,
        Level: row.level,
        AccountNumber: row.accountNumber,
        RowName: row.rowName,
        FullName: row.fullName,
        IsTotal: row.isTotal,
        Values: row.cents.map(centsToAmount),
      }),
    ),
  };
}
