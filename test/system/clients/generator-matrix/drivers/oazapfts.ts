import * as api from './api/api';
import {
  recordingFetch,
  type CreateDriver,
  type FlatInput,
  type Outcome,
} from './common';

const lower = (input: FlatInput) => ({
  useCustomDateRange: input.UseCustomDateRange,
  startDate: input.StartDate,
  endDate: input.EndDate,
  locations: input.Locations,
  filters: input.Filters,
  includeComputedColumns: input.IncludeComputedColumns,
  orderBy: input.OrderBy,
});

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  const opts = { baseUrl, headers: { 'X-ApiKey': apiKey }, fetch: recordingFetch(urls) };
  // A 304 (the reports' conditional GET) has no data.
  const outcome = async (call: Promise<{ status: number; data?: unknown }>): Promise<Outcome> => {
    const { status, data } = await call;
    return { status, body: data };
  };
  return {
    urls,
    echo: (message, encodeYourself) =>
      outcome(api.echo(encodeYourself ? encodeURIComponent(message) : message, {}, opts)),
    echoReplyGet: (message) => outcome(api.echoReplyGet({ message }, opts)),
    echoReplyPost: (message) => outcome(api.echoReplyPost({ Message: message }, {}, opts)),
    getFlat: (input) => outcome(api.getFlat(input.CompanyId, lower(input), opts)),
    getFlatReplyGet: (input) => outcome(api.getFlatReplyGet(input.CompanyId, lower(input), opts)),
    getFlatReplyPost: (input) => outcome(api.getFlatReplyPost(input, {}, opts)),
    getFlatReport: (token) => outcome(api.getFlatReport(token, {}, opts)),
  };
};
