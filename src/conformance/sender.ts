/**
 * The conformance suite's only way to the deployment: plain HTTP (fetch), one deadline per exchange for the headers
 * and the whole body, so a host that never answers fails the rule instead of hanging the run. It remembers the last
 * exchange, which a failed rule prints (the API key shown as `***`).
 */
import { RuleFailure, type Exchange } from './rule.ts';
import type { ContractRequest } from './requests.ts';

export interface SenderOptions {
  baseUrl: string;
  apiKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

export interface Sender {
  send(request: ContractRequest): Promise<Exchange>;
  /** The last exchange since `forget()`: answered, or `(no answer)` when it timed out. */
  last(): Exchange | undefined;
  forget(): void;
}

function shownRequest(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body: string | undefined,
): string {
  const shownHeaders = Object.entries(headers)
    .map(([k, v]) => `\n${k}: ${k.toLowerCase() === 'x-apikey' ? '***' : v}`)
    .join('');
  return `${method} ${pathAndQuery}${shownHeaders}${body ? `\n\n${body}` : ''}`;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // not JSON
  }
}

export function createSender({ baseUrl, apiKey, fetch: doFetch, timeoutMs }: SenderOptions): Sender {
  const base = baseUrl.replace(/\/+$/, '');
  let last: Exchange | undefined;
  return {
    async send({ method, url: pathAndQuery, headers: given, body, key }) {
      const headers: Record<string, string> = { ...given };
      if (key !== false && apiKey) headers['X-ApiKey'] = apiKey;
      const request = shownRequest(method, pathAndQuery, headers, body);
      const signal = AbortSignal.timeout(timeoutMs);
      let res: Response;
      let text: string;
      try {
        res = await doFetch(base + pathAndQuery, { method, headers, body, redirect: 'manual', signal });
        text = await res.text();
      } catch (error) {
        if (!signal.aborted) throw error;
        last = { request, status: 0, contentType: '', text: '(no answer)' };
        throw new RuleFailure(`timed out: no complete answer to ${method} ${pathAndQuery} within ${timeoutMs} ms`);
      }
      last = {
        request,
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        location: res.headers.get('location') ?? undefined,
        text,
        json: parsedJson(text),
      };
      return last;
    },
    last: () => last,
    forget: () => void (last = undefined),
  };
}
