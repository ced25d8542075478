/** The CSV import's red-team findings (issue 15, test/support/import-attacks-suite.ts) on a real PostgreSQL server. */
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { attacks } from '../../support/import-attacks-suite.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';

(skipPostgres ? describe.skip : describe)('import attacks on PostgreSQL', function () {
  this.timeout(120_000);
  let server: PostgresServer | undefined;
  let n = 0;
  before(async () => {
    server = await startPostgresServer('imports');
  });
  after(() => server?.destroy());
  attacks('PostgreSQL', async () => new PostgresLedgerStore(await server!.createDatabase(`imports_${++n}`)));
});
