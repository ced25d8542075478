import { UnsafeAmountError } from './errors.ts';

/** Converts an exact integer (bigint, integer string from SQL, or number) to JS number cents, refusing unsafe values. */
export function toSafeCents(value: bigint | string | number): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new UnsafeAmountError(`amount ${value} is not a safe integer number of cents`);
    return value;
  }
  const big = typeof value === 'bigint' ? value : BigInt(value);
  const n = Number(big);
  if (!Number.isSafeInteger(n) || BigInt(n) !== big) throw new UnsafeAmountError(`amount ${big} cents exceeds the safe integer range`);
  return n;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d{1,2}))?$/;

/** Parses a decimal string with at most 2 decimals ("-12.5", "1000.00") into integer cents, exactly. Undefined when malformed. */
export function parseDecimalCents(text: string): number | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m) return undefined;
  const cents = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'));
  const signed = m[1] === '-' ? -cents : cents;
  const n = Number(signed);
  return Number.isSafeInteger(n) ? n : undefined;
}
