/**
 * A small HTTPS client for tests behind the test nginx: trusts its self-signed certificate, can pick the source
 * address or an agent that keeps the connection.
 */
import { type Agent, request } from 'node:https';

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function httpsRequest(
  url: string,
  options: {
    ca: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    localAddress?: string;
    /** A keep-alive agent, to send several requests over one connection; default: a connection each. */
    agent?: Agent;
  },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ca: options.ca,
        localAddress: options.localAddress,
        agent: options.agent ?? false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
