/**
 * Listening and warm-up. An operation's first request runs code compiled and loaded on first use (its service, its
 * formats); one request per contract operation, sent to ourselves before we report ready, pays that cost up front.
 */
import type { Express } from 'express';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { contractOperations } from './contract/operations.ts';
import { warmUpHeaders } from './ops/warm-up-requests.ts';

export interface RunningServer {
  server: Server;
  url: string;
}

/**
 * How long a connection may take to send a request's headers, and its whole request (Node's defaults, named so that
 * the benchmarks' anchor servers are bounded as this one is, and no Node release changes them unseen).
 */
export const SERVER_TIME_LIMITS = { headersTimeout: 60_000, requestTimeout: 300_000 } as const;

export async function listen(app: Express, port: number, host: string): Promise<RunningServer> {
  const server = createServer(SERVER_TIME_LIMITS, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${hostPart}:${address.port}` };
}

/** How far above a busy port a free one is looked for. */
const PORTS_TRIED = 50;

function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * A busy port's error with `suggestedPort`: the first port above it that was free when looked at (the start's
 * one-sentence failure names it).
 */
export async function withFreePortSuggested(error: unknown, host: string): Promise<unknown> {
  const e = error as { code?: string; port?: number; suggestedPort?: number };
  if (e?.code !== 'EADDRINUSE' || typeof e.port !== 'number') return error;
  for (let port = e.port + 1; port <= Math.min(e.port + PORTS_TRIED, 65_535); port++) {
    if (await portIsFree(port, host)) {
      e.suggestedPort = port;
      break;
    }
  }
  return error;
}

/**
 * One request per contract operation, and the WSDL, sent one at a time: a request from outside that arrives meanwhile
 * waits for one of them at most, not for all. Over node:http, which the server has loaded already (the first use of
 * fetch loads its client, a share of start-up of its own). The access log leaves them out
 * (src/ops/warm-up-requests.ts).
 */
export async function warmUp(url: string): Promise<void> {
  const requests = contractOperations().all.map(({ method, template }) => ({
    method,
    path: template.replace(/\{\w+\}/g, 'warmup'),
  }));
  for (const { method, path } of [...requests, { method: 'GET', path: '/soap12?wsdl' }]) {
    await new Promise<void>((resolve, reject) => {
      const body = method === 'GET' ? undefined : '{}';
      const headers = { ...warmUpHeaders(), ...(body ? { 'content-type': 'application/json' } : {}) };
      const sent = httpRequest(url + path, { method, headers }, (res) => {
        res.resume().once('end', resolve).once('error', reject);
      });
      sent.once('error', reject).end(body);
    });
  }
}
