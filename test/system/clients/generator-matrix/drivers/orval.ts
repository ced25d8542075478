import * as api from './api/api';
import { settings } from './api/fetcher';
import type { CreateDriver, Outcome } from './common';

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  // orval's fetch client builds relative URLs; the base URL and key come from the custom fetch mutator (fetcher.ts).
  settings.baseUrl = baseUrl;
  settings.headers = { 'X-ApiKey': apiKey };
  settings.urls = urls;
  const outcome = async (call: Promise<{ status: number; data: unknown }>): Promise<Outcome> => {
    const { status, data } = await call;
    return { status, body: data };
  };
  return {
    urls,
    echo: (message, encodeYourself) => outcome(api.echo(encodeYourself ? encodeURIComponent(message) : message)),
    echoReplyGet: (message) => outcome(api.echoReplyGet({ Message: message })),
    echoReplyPost: (message) => outcome(api.echoReplyPost({ Message: message })),
    getFlat: (input) => outcome(api.getFlat(input)),
    getFlatReplyGet: (input) => outcome(api.getFlatReplyGet(input)),
    getFlatReplyPost: (input) => outcome(api.getFlatReplyPost(input)),
    getFlatReport: (token) => outcome(api.getFlatReport(token)),
  };
};
