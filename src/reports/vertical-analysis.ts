/**
 * Vertical analysis (pnl-semantics §3.10): each amount as a percentage of a base in the same column, rounded
 * half away from zero to 2 dp, null when the base is 0. Exact: computed on integer cents with BigInt.
 * The flat operation echoes `None`; this is the engine for when the option is exposed.
 */
import type { SelectedOptions } from '../contract/dtos.ts';
import type { FlatReport } from './flat-pnl.ts';

export type VerticalAnalysisType = Exclude<NonNullable<SelectedOptions['VerticalAnalysisType']>, 'None'>;

const BASE_ROW: Record<Exclude<VerticalAnalysisType, 'PercentOfRow'>, string> = {
  PercentOfIncome: 'Total Income',
  PercentOfExpense: 'Total Expenses',
  PercentOfColumn: 'Net Income',
};

/** part / base × 100, in hundredths of a percent, rounded half away from zero. */
function percent(part: number, base: number): number | null {
  if (base === 0) return null;
  const numerator = BigInt(part) * 20000n;
  const denominator = BigInt(base);
  const doubled = numerator / denominator; // twice the value in hundredths, truncated toward zero
  const hundredths = (doubled + (doubled < 0n ? -1n : 1n)) / 2n;
  return Number(hundredths) / 100;
}

/** One array of percentages per report row, aligned with its cells. */
export function verticalAnalysis(report: FlatReport, type: VerticalAnalysisType): (number | null)[][] {
  if (type === 'PercentOfRow') {
    const periods = report.periods.length;
    return report.rows.map((row) => {
      const rowTotal = row.cents.slice(0, periods).reduce((a, b) => a + b, 0);
      return row.cents.map((cell) => percent(cell, rowTotal));
    });
  }
  const baseRow = report.rows.find((row) => row.rowName === BASE_ROW[type]);
  if (!baseRow) throw new Error(`the report has no '${BASE_ROW[type]}' row`);
  return report.rows.map((row) => row.cents.map((cell, i) => percent(cell, baseRow.cents[i]!)));
}
