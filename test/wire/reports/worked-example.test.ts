/** pnl-semantics §5 through every HTTP route (test/support/worked-example-suite.ts) on DuckDB in memory. */
import { openStore } from '../../../src/store/open-store.ts';
import { workedExample } from '../../support/worked-example-suite.ts';

workedExample('DuckDB', async () => {
  const store = await openStore({ dataDir: '.', duckdbPath: ':memory:' });
  return { store, done: () => store.close() };
});
