/** Who is calling. Until authentication exists, every caller is the configured default company. */
export interface Caller {
  companyName: string;
}
