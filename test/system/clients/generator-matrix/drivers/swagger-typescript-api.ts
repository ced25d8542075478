import { Api, OrderBy, type HttpResponse } from './api/api';
import {
  recordingFetch,
  type CreateDriver,
  type FlatInput,
  type Outcome,
} from './common';

/** The generated enum (member names from the contract's x-enum-varnames). */
const typed = (i: FlatInput) => ({ ...i, OrderBy: i.OrderBy === undefined ? undefined : OrderBy[i.OrderBy] });

export const createDriver: CreateDriver = (baseUrl, apiKey) => {
  const urls: string[] = [];
  const api = new Api({
    baseUrl,
    baseApiParams: { headers: { 'X-ApiKey': apiKey } },
    customFetch: recordingFetch(urls),
  });
  // An error status rejects with the HttpResponse, its parsed body in `error`.
  const outcome = (call: Promise<HttpResponse<unknown, unknown>>): Promise<Outcome> =>
    call.then(
      (res) => ({ status: res.status, body: res.data }),
      (res: HttpResponse<unknown, unknown>) => ({ status: res.status, body: res.error }),
    );
  return {
    urls,
    echo: (message, encodeYourself) => outcome(api.v1.echo(encodeYourself ? encodeURIComponent(message) : message)),
    echoReplyGet: (message) => outcome(api.json.echoReplyGet({ Message: message })),
    echoReplyPost: (message) => outcome(api.json.echoReplyPost({}, { Message: message })),
    getFlat: (input) => outcome(api.v1.getFlat(typed(input))),
    getFlatReplyGet: (input) => outcome(api.json.getFlatReplyGet(typed(input))),
    getFlatReplyPost: (input) => outcome(api.json.getFlatReplyPost(typed(input))),
    getFlatReport: (token) => outcome(api.v1.getFlatReport(token)),
  };
};
