/** Integer cents → the decimal amount a client reads. Division of an integer by 100 prints the exact 2-dp decimal. */
export function centsToAmount(cents: number): number {
  return cents / 100;
}

/** Integer cents → the exact decimal text with 2 fraction digits (`-1234.5` dollars → `-1234.50`), for text exports. */
export function centsToFixed(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
