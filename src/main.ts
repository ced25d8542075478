/**
 * Process entry: read config, open the store (seeding the demo ledger on first start), listen, warm up,
 * then drain and close on SIGTERM/SIGINT.
 */
import { pino } from 'pino';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { listen, warmUp } from './server.ts';
import { openStore } from './store/open-store.ts';
import { seedDemoIfEmpty } from './store/demo-ledger.ts';

const config = loadConfig();
const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });

const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
if (config.demoData) await seedDemoIfEmpty(store, new Date());
const app = await createApp({ config, store, logger });
const { server, url } = await listen(app, config.port, config.host);
await warmUp(url);
logger.info({ url, store: store.kind }, 'ready');
console.log(`Reporting Service listening on ${url} (${store.kind} store)`);
console.log(`  curl ${url}/v1/echo/hello`);
console.log(`  curl '${url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&IncludeComputedColumns=true'`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: draining in-flight requests');
  server.closeIdleConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
