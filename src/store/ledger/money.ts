import { UnsafeAmountError } from './errors.ts';

/**
 * Converts an exact integer (bigint, integer string from SQL, or number) to JS number cents, refusing unsafe values.
 */
export function toSafeCents(value: bigint | string | number): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new UnsafeAmountError(`amount ${value} is not a safe integer number of cents`);
    return value;
  }
  const big = typeof value === 'bigint' ? value : BigInt(value);
  const n = Number(big);
  if (!Number.isSafeInteger(n) || BigInt(n) !== big)
    throw new UnsafeAmountError(`amount ${big} cents exceeds the safe integer range`);
  return n;
}
