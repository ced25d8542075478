/**
 * The real app, in-process, over a real store (DuckDB in memory by default), with response validation on:
 * every response a test receives has been checked against openapi/.
 */
import type { Express } from 'express';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import type { LedgerBatch, LedgerStore } from '../../src/store/ledger-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { workedExampleBatch } from '../fixtures/worked-example.ts';

export interface TestApp {
  app: Express;
  store: LedgerStore;
  close(): Promise<void>;
}

export interface TestAppOptions {
  store?: LedgerStore;
  batch?: LedgerBatch;
  debug?: boolean;
  companyName?: string;
  now?: () => Date;
}

export const TEST_COMPANY_NAME = 'Test Company';

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const store = options.store ?? (await openStore({ dataDir: '.', duckdbPath: ':memory:' }));
  if (!options.store) await store.load(options.batch ?? workedExampleBatch);
  const app = await createApp({
    config: { companyName: options.companyName ?? TEST_COMPANY_NAME, debug: options.debug ?? false, bodyLimitBytes: 65_536, validateResponses: true },
    store,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    now: options.now ?? (() => new Date('2024-03-15T12:00:00Z')),
  });
  return { app, store, close: () => (options.store ? Promise.resolve() : store.close()) };
}
