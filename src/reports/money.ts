/** Integer cents → the decimal amount a client reads. Division of an integer by 100 prints the exact 2-dp decimal. */
export function centsToAmount(cents: number): number {
  return cents / 100;
}
