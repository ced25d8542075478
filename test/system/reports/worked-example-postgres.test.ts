/** pnl-semantics §5 through every HTTP route (test/support/worked-example-suite.ts) on a real PostgreSQL server. */
import { openStore } from '../../../src/store/open-store.ts';
import { skipPostgres, startPostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { workedExample } from '../../support/worked-example-suite.ts';

if (skipPostgres) {
  describe('worked example (pnl-semantics §5) on PostgreSQL', () => {
    it('is skipped because SKIP_POSTGRES=1');
  });
} else {
  workedExample('PostgreSQL', async () => {
    const server = await startPostgresServer('worked_example');
    const store = await openStore({ dataDir: '.', databaseUrl: server.url });
    return {
      store,
      done: async () => {
        await store.close();
        await server.destroy();
      },
    };
  });
}
