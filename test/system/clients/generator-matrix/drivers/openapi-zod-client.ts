import { isAxiosError } from 'axios';
import { createApiClient } from './api/api';
import type { CreateDriver, Outcome } from './common';

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  // Responses are validated by the generated zod schemas; axios sends arrays as Locations[]=10.
  const api = createApiClient(baseUrl, { axiosConfig: { headers: { 'X-ApiKey': apiKey } } });
  api.axios.interceptors.request.use((config) => {
    urls.push(api.axios.getUri(config));
    return config;
  });
  const outcome = (call: Promise<unknown>): Promise<Outcome> =>
    call.then(
      (body) => ({ status: 200, body }),
      (error: unknown) => {
        if (isAxiosError(error) && error.response) return { status: error.response.status, body: error.response.data };
        throw error;
      },
    );
  return {
    urls,
    echo: (message, encodeYourself) =>
      outcome(api.Echo({ params: { Message: encodeYourself ? encodeURIComponent(message) : message } })),
    echoReplyGet: (message) => outcome(api.EchoReplyGet({ queries: { Message: message } })),
    echoReplyPost: (message) => outcome(api.EchoReplyPost({ Message: message })),
    getFlat: (input) => outcome(api.GetFlat({ queries: { ...input } })),
    getFlatReplyGet: (input) => outcome(api.GetFlatReplyGet({ queries: { ...input } })),
    getFlatReplyPost: (input) => outcome(api.GetFlatReplyPost({ ...input })),
    getFlatReport: (token) => outcome(api.GetFlatReport({ params: { Token: token } })),
  };
};
