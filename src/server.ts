/**
 * Listening and warm-up. express-openapi-validator compiles its validators on first use (~0.5 s); one request
 * per contract operation, sent to ourselves before we report ready, pays that cost up front.
 */
import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractOperations } from './contract/operations.ts';
import { expressServer } from './http/front-door.ts';

export interface RunningServer {
  server: Server;
  url: string;
}

export async function listen(app: Express, port: number, host: string): Promise<RunningServer> {
  const server = expressServer(app);
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

export async function warmUp(url: string): Promise<void> {
  const requests = contractOperations().all.map(({ method, template }) => {
    const path = template.replace(/\{\w+\}/g, 'warmup');
    return method === 'GET'
      ? fetch(url + path)
      : fetch(url + path, { method, headers: { 'content-type': 'application/json' }, body: '{}' });
  });
  const responses = await Promise.all([...requests, fetch(`${url}/soap12?wsdl`)]);
  await Promise.all(responses.map((r) => r.arrayBuffer()));
}
