/**
 * Process entry: read config, open the store (the demo ledger loaded by a process of its own on first start), listen,
 * warm up, print the banner (src/ops/start-banner.ts), then drain and close on SIGTERM/SIGINT. What a failed start
 * would leave half made comes after the listen: the demo key (shown once) and the key-administration socket. A
 * failure is one sentence (src/ops/failure-sentence.ts; the stack under DEBUG=1) and exit code 1.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createFirstApiKey } from './auth/api-keys.ts';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { debugEnabled, failureSentence } from './ops/failure-sentence.ts';
import { createLogger } from './ops/logger.ts';
import { printStartBanner } from './ops/start-banner.ts';
import { openStore } from './store/open-store.ts';
import { keyAdminAnswers, keyAdminSocketPath, listenKeyAdmin } from './ops/key-admin-socket.ts';
import { seedDemoInChildProcess } from './ops/demo-seed-process.ts';
import { listen, warmUp, withFreePortSuggested } from './server.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  // A stray rejection is a bug to log, never a reason to drop every other request in flight.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

  let store = await openStore(config);
  if (config.demoData && (await store.isEmpty())) {
    // Loaded by a process of its own (its memory goes with it); the embedded file has one writer at a time.
    const embedded = store.kind === 'duckdb';
    if (embedded) await store.close();
    await seedDemoInChildProcess();
    if (embedded) store = await openStore(config);
  }
  if (config.trustProxy === true) {
    logger.warn(
      'TRUST_PROXY=true: X-Forwarded-For/-Proto/-Host are believed from any peer; name the proxy instead unless ' +
        'only it can reach this port',
    );
  }
  if (config.auth === 'none') {
    logger.warn(
      "AUTH=none: every operation is public, API keys are not read; any caller can read every company's report",
    );
  }
  // What the app can answer without runs once it listens and has warmed up, before it reports ready (a failure stops
  // the start).
  const unfinished: (() => Promise<void>)[] = [];
  const app = await createApp({ config, store, logger, finishLater: (work) => void unfinished.push(work) });
  const listening = await listen(app, config.port, config.host).catch(async (err: unknown) => {
    await store.close({ beforeExit: true });
    throw await withFreePortSuggested(err, config.host);
  });
  const { server } = listening;
  // The service's root: under BASE_PATH when one is set.
  const url = listening.url + (config.basePath ?? '');
  // Where users reach it: every URL printed here or by the tools (asked through the socket) is this one.
  const publicUrl = config.publicBaseUrl?.replace(/\/$/, '') ?? url;
  // The embedded file has one writer, this process: `npm run keys` reaches its key operations through this socket.
  // Over PostgreSQL the tools open the database themselves and ask the socket only where the service answers; the
  // first instance on this DATA_DIR keeps it, and without it (DATA_DIR not writable) they print the configured URL.
  const socketPath = keyAdminSocketPath(config.dataDir);
  const embedded = store.kind === 'duckdb';
  const keyAdminPath = embedded || !(await keyAdminAnswers(socketPath)) ? socketPath : undefined;
  // Not fatal: without it (a path too long for a Unix socket, a read-only directory) keys are managed with the server
  // stopped.
  const keyAdmin = keyAdminPath
    ? await Promise.resolve()
        .then(() => embedded || mkdirSync(config.dataDir, { recursive: true }))
        .then(() => listenKeyAdmin(keyAdminPath, store, () => publicUrl, { urlOnly: !embedded }))
        .catch((err: unknown) =>
          embedded
            ? void logger.warn(
                { err, path: keyAdminPath },
                'no key administration socket: stop the server to run npm run keys',
              )
            : void logger.debug({ err, path: keyAdminPath }, 'no socket telling the tools where this server answers'),
        )
    : undefined;
  if (keyAdmin && keyAdminPath) process.once('exit', () => rmSync(keyAdminPath, { force: true }));
  await warmUp(url);
  for (const work of unfinished) await work();
  // The first report of a company would otherwise wait for its in-memory pre-aggregates; read them now, in the
  // background.
  void store
    .preload(config.preloadCompanies)
    .catch((err: unknown) => logger.warn({ err }, 'preload failed; reports read on demand'));
  // The embedded demo gets one key on its first start that gets this far; only its hash is stored, so it is printed
  // here once.
  // Made only when the store holds no key, atomically: instances started together over one database make one.
  const demoKey =
    config.demoData && config.auth === 'apikey' && (await store.listCompanies()).some((c) => c.id === 1)
      ? await createFirstApiKey(store, { name: 'demo', companyIds: [1] })
      : undefined;

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
    keyAdmin?.close(); // its socket file goes with the process ('exit' above), only when this process made it
    await store.close({ beforeExit: true });
    logger.info('stopped');
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Printed once a signal would stop the process cleanly: a caller may act on the first banner line (and a stop that
  // comes while the rest reads the store ends the process with 0, as any stop does).
  await printStartBanner({ url, publicUrl, store, auth: config.auth, demoKey }, (text) => console.log(text)).catch(
    (err: unknown) => {
      if (!stopping) throw err;
    },
  );
  logger.info(
    {
      url,
      store: store.kind,
      auth: config.auth,
      basePath: config.basePath || undefined,
      publicBaseUrl: config.publicBaseUrl,
    },
    'ready',
  );
}

main().catch((err: unknown) => {
  console.error(failureSentence(err));
  if (debugEnabled() && err instanceof Error) console.error(err.stack);
  process.exit(1);
});
