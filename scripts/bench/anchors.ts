/**
 * The echo benchmark's anchor servers (scripts/bench-http.ts): a bare node:http server, plain Express 5 and Fastify 5,
 * each answering the two echo requests with the app's own body and headers (a new X-Request-Id each), on a loopback
 * port, bounded in time as the service is (SERVER_TIME_LIMITS: its headers and request time-outs).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { devNull } from 'node:os';
import { SERVER_TIME_LIMITS } from '../../src/server.ts';

export const ANCHORS = ['node:http', 'express', 'fastify'] as const;
export type Anchor = (typeof ANCHORS)[number];

/** The app's answer, which every anchor sends byte for byte: its body and headers (a new X-Request-Id each time). */
export interface Answer {
  body: string;
  headers: Record<string, string>;
}

export interface AnchorServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** The echo requests each anchor answers. */
export const ECHO_ROUTES = [
  { method: 'GET', path: '/v1/echo/hello' },
  { method: 'POST', path: '/json/reply/EchoRequest' },
] as const;

async function listening(server: Server): Promise<AnchorServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
  return { server, url, close };
}

export async function startAnchor(anchor: Anchor, answer: Answer): Promise<AnchorServer> {
  const headers = () => ({ ...answer.headers, 'x-request-id': randomUUID() });
  if (anchor === 'node:http') {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const known = ECHO_ROUTES.some((r) => r.method === req.method && r.path === req.url);
      if (!known) return void res.writeHead(404).end();
      req.resume().once('end', () => {
        res.writeHead(200, { ...headers(), 'content-length': Buffer.byteLength(answer.body) });
        res.end(answer.body);
      });
    };
    return listening(createServer(SERVER_TIME_LIMITS, handler));
  }
  const json = JSON.parse(answer.body) as unknown;
  if (anchor === 'express') {
    // Plain Express 5: one route per echo, express.json() for the POST, res.json with the app's headers.
    const { default: express } = await import('express');
    const app = express();
    app.disable('x-powered-by');
    const send = (_req: unknown, res: import('express').Response) => void res.set(headers()).json(json);
    app.get('/v1/echo/:message', send);
    app.post('/json/reply/EchoRequest', express.json(), send);
    return listening(createServer(SERVER_TIME_LIMITS, app));
  }
  // Fastify 5 with schema validation of the path variable and the body, one pino line per response to /dev/null.
  const { default: Fastify } = await import('fastify');
  const { pino } = await import('pino');
  const app = Fastify({
    loggerInstance: pino({ level: 'info' }, pino.destination({ dest: devNull, sync: false })),
    requestTimeout: SERVER_TIME_LIMITS.requestTimeout,
  });
  app.server.headersTimeout = SERVER_TIME_LIMITS.headersTimeout;
  // The routes log at warn (no built-in request lines); the hook writes one info line per response.
  app.addHook('onResponse', async (request, reply) => {
    app.log.info(
      { reqId: request.id, req: { method: request.method, url: request.url }, res: { statusCode: reply.statusCode } },
      'request completed',
    );
  });
  const message = { type: 'object', properties: { Message: { type: 'string' } } };
  const quiet = { logLevel: 'warn' } as const;
  app.get('/v1/echo/:Message', { ...quiet, schema: { params: message } }, (_req, reply) =>
    reply.headers(headers()).send(json),
  );
  app.post('/json/reply/EchoRequest', { ...quiet, schema: { body: message } }, (_req, reply) =>
    reply.headers(headers()).send(json),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { server: app.server, url, close: () => app.close() };
}
