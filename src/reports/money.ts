/**
 * Money is integer cents from the store to the renderer. Every figure a report shows (an account's month, a section
 * total, a computed row, the Total column) is an exact sum, and at most MAX_REPORT_CENTS in magnitude: 15 significant
 * digits, what a JSON number (a double) and a spreadsheet cell hold exactly. A report with a larger figure is refused
 * (ArgumentException), never printed a cent off.
 */
import { appError } from '../errors/app-error.ts';

/** ±9,999,999,999,999.99: the largest figure a report shows. */
export const MAX_REPORT_CENTS = 999_999_999_999_999;

/** Integer cents → the decimal amount a client reads. Division of an integer by 100 prints the exact 2-dp decimal. */
export function centsToAmount(cents: number): number {
  return cents / 100;
}

/** Integer cents → the exact decimal text with 2 fraction digits (`-1234.5` dollars → `-1234.50`), for text exports. */
export function centsToFixed(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * The exact sum of integer cents: in doubles while every partial sum is a safe integer (the common case), in BigInt
 * from the first one that is not; refused when the sum is beyond MAX_REPORT_CENTS.
 */
export function sumCents(values: readonly number[]): number {
  let small = 0;
  let big: bigint | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const next = small + value;
    if (Number.isSafeInteger(next)) small = next;
    else {
      big = (big ?? 0n) + BigInt(small) + BigInt(value);
      small = 0;
    }
  }
  return boundedCents(big === undefined ? small : big + BigInt(small));
}

/** A figure a report may show, as a number; refused when it is beyond MAX_REPORT_CENTS. */
export function boundedCents(total: number | bigint): number {
  if (total > MAX_REPORT_CENTS || total < -MAX_REPORT_CENTS) {
    throw appError('ReportFigureTooLarge', { max: centsToFixed(MAX_REPORT_CENTS) });
  }
  return Number(total);
}

/**
 * Column by column, the exact sums of rows of `width` cents (sumCents of each column): added in doubles while every
 * partial sum is a safe integer, each column summed again by sumCents from the first one that is not.
 */
export function sumColumns(rows: readonly (readonly number[])[], width: number): number[] {
  const sums = new Array<number>(width).fill(0);
  for (const row of rows) {
    for (let i = 0; i < width; i++) {
      const next = sums[i]! + row[i]!;
      if (!Number.isSafeInteger(next)) return sums.map((_, c) => sumCents(rows.map((r) => r[c]!)));
      sums[i] = next;
    }
  }
  return sums.map(boundedCents);
}
