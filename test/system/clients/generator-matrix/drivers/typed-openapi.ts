import { createApiClient, type Fetcher } from './api/api';
import { recordingFetch, type CreateDriver, type Outcome } from './common';

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  const record = recordingFetch(urls);
  // typed-openapi leaves the transport to the caller: a fetcher that sends JSON bodies and the key.
  const fetcher: Fetcher = {
    fetch: ({ method, url, urlSearchParams, parameters, overrides }) => {
      if (urlSearchParams) url.search = urlSearchParams.toString();
      const body = (parameters as { body?: unknown } | undefined)?.body;
      return record(url, {
        ...overrides,
        method: method.toUpperCase(),
        headers: { 'X-ApiKey': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
  const api = createApiClient(fetcher, baseUrl);
  // Its types require `query` (even `{}`) on every operation that declares optional query parameters, and `header`
  // (even `{}`) on every operation that declares an optional header (the reports' If-None-Match).
  const outcome = async (call: Promise<{ status: number; data: unknown }>): Promise<Outcome> => {
    const res = await call;
    return { status: res.status, body: res.data };
  };
  return {
    urls,
    echo: (message, encodeYourself) =>
      outcome(
        api.get('/v1/echo/{Message}', {
          path: { Message: encodeYourself ? encodeURIComponent(message) : message },
          query: {},
          withResponse: true,
        }),
      ),
    echoReplyGet: (message) =>
      outcome(api.get('/json/reply/EchoRequest', { query: { Message: message }, withResponse: true })),
    echoReplyPost: (message) =>
      outcome(api.post('/json/reply/EchoRequest', { body: { Message: message }, query: {}, withResponse: true })),
    getFlat: (input) =>
      outcome(api.get('/v1/Reporting/ProfitAndLoss/Flat', { query: input, header: {}, withResponse: true })),
    getFlatReplyGet: (input) =>
      outcome(api.get('/json/reply/GetFlatRequest', { query: input, header: {}, withResponse: true })),
    getFlatReplyPost: (input) =>
      outcome(api.post('/json/reply/GetFlatRequest', { body: input, query: {}, withResponse: true })),
    getFlatReport: (token) =>
      outcome(
        api.get('/v1/Reporting/ProfitAndLoss/Flat/Reports/{Token}', {
          path: { Token: token },
          query: {},
          header: {},
          withResponse: true,
        }),
      ),
  };
};
