/**
 * Goal 2 of issue 23 in figures: how long after an import commits through one PostgreSQL instance another instance's
 * report shows it. The benchmark's process is the importing instance (a PostgresLedgerStore of its own), the report
 * server (another process, serving HTTP) the other one. The commit is timed when this process hears the import's
 * NOTIFY on a listening connection of its own (PostgreSQL delivers it at COMMIT, as to every instance); the import is
 * visible when the other instance's report over HTTP shows different figures. The imports go to a small company of
 * the benchmark's own, so the measured ledger stays as imported.
 */
import pg from 'pg';
import { PostgresLedgerStore } from '../../src/store/postgres/postgres-store.ts';
import type { LedgerBatch } from '../../src/domain/ledger.ts';
import { CHANGE_CHANNEL } from '../../src/store/postgres/change-log-sql.ts';

export const PROPAGATION_COMPANY = 9001;
const LOCATION = 900_101,
  CASH = 900_110,
  SALES = 900_140;
export const PROPAGATION_RANGE = { from: '2024-01-01', to: '2024-12-31' };
/** The longest wait for an import's notification, or for the other instance to show it. */
const WAIT_MS = 60_000;

/** `promise`, or a rejection naming `what` when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const REFERENCE: LedgerBatch = {
  companies: [
    { id: PROPAGATION_COMPANY, name: 'Propagation Co', baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' },
  ],
  locations: [{ id: LOCATION, companyId: PROPAGATION_COMPANY, name: 'Main' }],
  accounts: [
    {
      id: CASH,
      companyId: PROPAGATION_COMPANY,
      number: '1000',
      name: 'Cash',
      type: 'Bank',
      parentId: null,
      isActive: true,
      standardAccountId: null,
    },
    {
      id: SALES,
      companyId: PROPAGATION_COMPANY,
      number: '4000',
      name: 'Sales',
      type: 'Income',
      parentId: null,
      isActive: true,
      standardAccountId: null,
    },
  ],
};

/** Creates the benchmark's small company (before the report server starts, so that its API key may name it). */
export async function ensurePropagationCompany(url: string): Promise<void> {
  const store = new PostgresLedgerStore(url);
  try {
    await store.migrate();
    if (!(await store.listCompanies()).some((c) => c.id === PROPAGATION_COMPANY)) await store.load(REFERENCE);
  } finally {
    await store.close();
  }
}

/**
 * Milliseconds from each of `loads` one-entry imports' COMMIT to the moment `report()` (the other instance's figures of
 * the small company over PROPAGATION_RANGE) differs from before it.
 */
export async function measurePropagation(url: string, report: () => Promise<string>, loads = 5): Promise<number[]> {
  const store = new PostgresLedgerStore(url);
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
  const times: number[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      const before = await report();
      const committed = new Promise<number>((resolve) =>
        listener.once('notification', () => resolve(performance.now())),
      );
      const cents = 10_000 + i;
      const loaded = store.load({
        entries: [
          {
            companyId: PROPAGATION_COMPANY,
            locationId: LOCATION,
            date: '2024-06-15',
            ref: `propagation-${Date.now()}-${i}`,
            lines: [
              { accountId: SALES, cents: -cents },
              { accountId: CASH, cents },
            ],
          },
        ],
      });
      // A load that fails commits nothing (no notification): its error ends the run instead of a wait for ever.
      const at = await Promise.race([committed, loaded.then(() => within(committed, WAIT_MS, 'its notification'))]);
      while ((await report()) === before) {
        if (performance.now() - at > WAIT_MS)
          throw new Error(`an import did not reach the other instance within ${WAIT_MS} ms`);
      }
      times.push(performance.now() - at);
      await loaded;
    }
  } finally {
    await listener.end();
    await store.close();
  }
  return times;
}
