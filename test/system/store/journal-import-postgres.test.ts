/** The bulk journal import (test/support/journal-import-suite.ts) on a real PostgreSQL server. */
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { journalImport } from '../../support/journal-import-suite.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';

describe('bulk journal import over PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let n = 0;
  before(async function () {
    if (skipPostgres) this.skip();
    server = await startPostgresServer('journal_import');
  });
  after(async () => server?.destroy());
  journalImport('PostgreSQL', async () => new PostgresLedgerStore(await server!.createDatabase(`journal_${++n}`)));
});
