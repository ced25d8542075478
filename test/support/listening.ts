/** The test app listening on a real loopback port, for clients that speak HTTP themselves. */
import type { Server } from 'node:http';
import { listen } from '../../src/server.ts';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

export interface ListeningTestApp extends TestApp {
  url: string;
  server: Server;
}

export async function listenTestApp(options: TestAppOptions = {}): Promise<ListeningTestApp> {
  const t = await createTestApp(options);
  const { server, url } = await listen(t.app, 0, '127.0.0.1');
  return {
    ...t,
    url,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}
