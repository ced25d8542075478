/**
 * A host that records every request it gets (method, URI, headers as sent, body bytes) and answers each the same way:
 * put in the old host's or the sink's place behind the shadow site, it shows what nginx sends each of them.
 */
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  /** The header lines as they came, names in their case, in their order. */
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RecordingHost {
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function startRecordingHost(answer: { status: number; headers?: OutgoingHttpHeaders; body?: string }) {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { method = '', url = '', rawHeaders, headers } = req;
      requests.push({ method, url, rawHeaders, headers, body: Buffer.concat(chunks).toString('latin1') });
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  return new Promise<RecordingHost>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        requests,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      }),
    );
  });
}
