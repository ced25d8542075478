/**
 * Process entry: read config, open the store (seeding the demo ledger on first start), listen, warm up,
 * then drain and close on SIGTERM/SIGINT.
 */
import { rmSync } from 'node:fs';
import { createApiKey } from './auth/api-keys.ts';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './ops/logger.ts';
import { openStore } from './store/open-store.ts';
import { keyAdminSocketPath, listenKeyAdmin } from './ops/key-admin-socket.ts';
import { seedDemoIfEmpty } from './store/demo-ledger.ts';
import { listen, warmUp } from './server.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // A stray rejection is a bug to log, never a reason to drop every other request in flight.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (config.demoData) await seedDemoIfEmpty(store, new Date());
  // The embedded file has one writer, this process: `npm run keys` reaches its key operations through this socket.
  const keyAdminPath = store.kind === 'duckdb' ? keyAdminSocketPath(config.dataDir) : undefined;
  // Not fatal: without it (a path too long for a Unix socket, a read-only directory) keys are managed with the server stopped.
  const keyAdmin = keyAdminPath
    ? await listenKeyAdmin(keyAdminPath, store).catch((err: unknown) => void logger.warn({ err, path: keyAdminPath }, 'no key administration socket: stop the server to run npm run keys'))
    : undefined;
  // The embedded demo gets one key on first start; only its hash is stored, so it is printed here once.
  const demoKey = config.demoData && config.auth === 'apikey' && (await store.listApiKeys()).length === 0 && (await store.listCompanies()).some((c) => c.id === 1)
    ? (await createApiKey(store, { name: 'demo', companyIds: [1] })).key
    : undefined;
  if (config.trustProxy === true) {
    logger.warn('TRUST_PROXY=true: X-Forwarded-For/-Proto/-Host are believed from any peer; name the proxy instead unless only it can reach this port');
  }
  if (config.auth === 'none') {
    logger.warn('AUTH=none: every operation is public, API keys are not read; any caller can read every company\'s report');
  }
  // What the app can answer without runs once it listens and has warmed up, before it reports ready (a failure stops the start).
  const unfinished: (() => Promise<void>)[] = [];
  const app = await createApp({ config, store, logger, finishLater: (work) => void unfinished.push(work) });
  const listening = await listen(app, config.port, config.host);
  const { server } = listening;
  // The service's root: under BASE_PATH when one is set.
  const url = listening.url + (config.basePath ?? '');
  await warmUp(url);
  for (const work of unfinished) await work();
  // The first report of a company would otherwise wait for its in-memory pre-aggregates; read them now, in the background.
  void store.preload().catch((err: unknown) => logger.warn({ err }, 'preload failed; reports read on demand'));
  logger.info({ url, store: store.kind, auth: config.auth, basePath: config.basePath || undefined, publicBaseUrl: config.publicBaseUrl }, 'ready');
  console.log(`Reporting Service listening on ${url} (${store.kind} store)`);
  console.log(`  curl ${url}/v1/echo/hello`);
  const keyText = demoKey ?? '<your key>';
  const keyHeader = config.auth === 'none' ? '' : `-H 'X-ApiKey: ${keyText}' `;
  console.log(`  curl ${keyHeader}'${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true'`);
  if (config.auth === 'none') {
    console.log('AUTH=none: reports need no API key.');
    const pageUrl = config.demoData ? await reportPageUrl(url) : undefined;
    if (pageUrl) console.log(`  open in a browser (report page with chart): ${pageUrl}`);
  } else if (demoKey) {
    console.log(`Demo API key for company 1 (shown once, stored hashed): ${demoKey}`);
    const pageUrl = await reportPageUrl(url, demoKey);
    if (pageUrl) console.log(`  open in a browser (report page with chart): ${pageUrl}`);
  } else {
    console.log('Reports need an API key: make one with `npm run keys -- create --company 1` (list: `npm run keys -- list`).');
  }

  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: draining in-flight requests');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Keep-alive connections that finish a request after close() are closed as they go idle.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const force = setTimeout(() => {
      logger.warn('drain time-out: closing the remaining connections');
      server.closeAllConnections();
    }, config.drainTimeoutMs);
    await closed;
    clearInterval(idle);
    clearTimeout(force);
    keyAdmin?.close();
    if (keyAdminPath) rmSync(keyAdminPath, { force: true });
    await store.close({ beforeExit: true });
    logger.info('stopped');
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Builds this year's demo report once and returns its link, with the key as `apikey` so a browser can open it. */
async function reportPageUrl(base: string, key?: string): Promise<string | undefined> {
  const res = await fetch(`${base}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true`, { headers: key ? { 'X-ApiKey': key } : {} });
  if (!res.ok) return undefined;
  const { Url } = (await res.json()) as { Url: string };
  return key ? `${Url}${Url.includes('?') ? '&' : '?'}apikey=${encodeURIComponent(key)}` : Url;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
