/**
 * Entry of the process that loads the demo ledger (src/ops/demo-seed-process.ts): opens the configured store, loads
 * the ledger if the store holds no company, closes it and exits; a failure is one sentence on stderr and exit code 1.
 */
import { loadConfig } from '../config.ts';
import { seedDemoIfEmpty } from '../store/demo-ledger.ts';
import { openStore } from '../store/open-store.ts';
import { debugEnabled, failureSentence } from './failure-sentence.ts';

try {
  const store = await openStore(loadConfig());
  try {
    await seedDemoIfEmpty(store, new Date());
  } finally {
    await store.close();
  }
} catch (err) {
  console.error(failureSentence(err));
  if (debugEnabled() && err instanceof Error) console.error(err.stack);
  process.exitCode = 1;
}
