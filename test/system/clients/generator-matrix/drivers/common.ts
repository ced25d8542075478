/**
 * What every generated client's driver offers the matrix test: one call per operation of openapi/, each answering
 * the HTTP status and the parsed JSON body (the ResponseStatus body on errors). Compiled with the generated code.
 */
export interface FlatInput {
  CompanyId: number;
  UseCustomDateRange?: boolean;
  StartDate?: string;
  EndDate?: string;
  Locations?: number[];
  Filters?: string[];
  IncludeComputedColumns?: boolean;
  OrderBy?: 'Default' | 'AccountNumber' | 'AccountName' | 'AmountDescending' | 'AmountAscending';
}

export interface Outcome {
  status: number;
  body: unknown;
}

export interface Driver {
  /** `encodeYourself`: the caller percent-encodes the path value (the workaround for generators that do not). */
  echo(message: string, encodeYourself: boolean): Promise<Outcome>;
  echoReplyGet(message: string): Promise<Outcome>;
  echoReplyPost(message: string): Promise<Outcome>;
  getFlat(input: FlatInput): Promise<Outcome>;
  getFlatReplyGet(input: FlatInput): Promise<Outcome>;
  getFlatReplyPost(input: FlatInput): Promise<Outcome>;
  getFlatReport(token: string): Promise<Outcome>;
  /** Every URL the client requested, where the driver can see them. */
  urls: string[];
}

export type CreateDriver = (baseUrl: string, apiKey: string) => Driver;

/** A fetch that records the URLs it is asked for. */
export function recordingFetch(urls: string[]): typeof fetch {
  return (input, init) => {
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetch(input, init);
  };
}
