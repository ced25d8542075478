/**
 * The ledger store: one interface, two adapters (duckdb/ embedded, postgres/ shared), split by concern: what reports
 * read, what writes the ledger, API keys, settings, and the store's life. The domain types are in src/domain/.
 */
import type { ApiKeyStore } from './api-keys.ts';
import type { StoreLifecycle } from './lifecycle.ts';
import type { LedgerReader } from './reader.ts';
import type { SettingsStore } from './settings.ts';
import type { LedgerWriter } from './writer.ts';

export interface LedgerStore extends LedgerReader, LedgerWriter, ApiKeyStore, SettingsStore, StoreLifecycle {}
