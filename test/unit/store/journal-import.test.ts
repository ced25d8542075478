/** The bulk journal import (test/support/journal-import-suite.ts) on DuckDB in memory. */
import { DuckDbLedgerStore } from '../../../src/store/duckdb/duckdb-store.ts';
import { journalImport } from '../../support/journal-import-suite.ts';

journalImport('DuckDB', () => DuckDbLedgerStore.open(':memory:'));
