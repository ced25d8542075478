import {
  ApiError,
  EchoService,
  OpenAPI,
  OrderBy,
  ReportingService,
} from './api';
import type { CreateDriver, FlatInput, Outcome } from './common';

/** The generated enum (member names from the contract's x-enum-varnames). */
const orderBy = (i: FlatInput) => (i.OrderBy === undefined ? undefined : OrderBy[i.OrderBy]);
const args = (i: FlatInput) =>
  [
    i.CompanyId,
    undefined,
    i.IncludeComputedColumns,
    orderBy(i),
    i.UseCustomDateRange,
    i.StartDate,
    i.EndDate,
    i.Filters,
    i.Locations,
  ] as const;

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  OpenAPI.BASE = baseUrl;
  OpenAPI.HEADERS = { 'X-ApiKey': apiKey };
  const outcome = (call: Promise<unknown>): Promise<Outcome> =>
    call.then(
      (body) => ({ status: 200, body }),
      (error: unknown) => {
        if (error instanceof ApiError) return { status: error.status, body: error.body };
        throw error;
      },
    );
  return {
    urls: [],
    echo: (message, encodeYourself) => {
      // The generator's default path encoder is encodeURI (leaves / ? # raw); OpenAPI.ENCODE_PATH is its own fix.
      OpenAPI.ENCODE_PATH = encodeYourself ? encodeURIComponent : undefined;
      return outcome(EchoService.echo(message));
    },
    echoReplyGet: (message) => outcome(EchoService.echoReplyGet(message)),
    echoReplyPost: (message) => outcome(EchoService.echoReplyPost(undefined, undefined, { Message: message })),
    getFlat: (input) => outcome(ReportingService.getFlat(...args(input))),
    getFlatReplyGet: (input) => outcome(ReportingService.getFlatReplyGet(...args(input))),
    getFlatReplyPost: (input) => outcome(ReportingService.getFlatReplyPost({ ...input, OrderBy: orderBy(input) })),
    getFlatReport: (token) => outcome(ReportingService.getFlatReport(token)),
  };
};
