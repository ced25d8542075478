import { createClient, createConfig } from './api/client';
import * as sdk from './api/sdk.gen';
import {
  recordingFetch,
  type CreateDriver,
  type FlatInput,
  type Outcome,
} from './common';

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  // The key through hey-api's own auth hook: it goes where the operation's security says (the X-ApiKey header).
  const client = createClient(createConfig({ baseUrl, fetch: recordingFetch(urls), auth: () => apiKey }));
  const outcome = async (call: Promise<{ data?: unknown; error?: unknown; response?: Response }>): Promise<Outcome> => {
    const { data, error, response } = await call;
    return { status: response?.status ?? 0, body: response?.ok ? data : error };
  };
  return {
    urls,
    echo: (message, encodeYourself) =>
      outcome(sdk.echo({ client, path: { Message: encodeYourself ? encodeURIComponent(message) : message } })),
    echoReplyGet: (message) => outcome(sdk.echoReplyGet({ client, query: { Message: message } })),
    echoReplyPost: (message) => outcome(sdk.echoReplyPost({ client, body: { Message: message } })),
    getFlat: (input: FlatInput) => outcome(sdk.getFlat({ client, query: input })),
    getFlatReplyGet: (input: FlatInput) => outcome(sdk.getFlatReplyGet({ client, query: input })),
    getFlatReplyPost: (input: FlatInput) => outcome(sdk.getFlatReplyPost({ client, body: input })),
    getFlatReport: (token) => outcome(sdk.getFlatReport({ client, path: { Token: token } })),
  };
};
