/** What a store keeps of API keys: their hashes and scopes, never the keys. */
import type { Company } from '../../domain/ledger.ts';

/** An API key as stored: never the key itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: number;
  name: string;
  /** Lowercase hex SHA-256 of the key. */
  keyHash: string;
  /** The companies the key may read (its scope). */
  companyIds: number[];
  createdAt: Date;
  /** Set once the key is revoked; a revoked key is refused. */
  revokedAt: Date | null;
}

export interface NewApiKey {
  name: string;
  keyHash: string;
  companyIds: number[];
}

export interface ApiKeyStore {
  /** Every company, by id (for key scopes and tooling). */
  listCompanies(): Promise<Company[]>;
  /** Stores a new API key (hash and scope) and returns it with its id. */
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  /**
   * Stores the key only when the store holds no key at all, atomically (the demo key: instances started together
   * over one database make one); undefined when a key exists.
   */
  createFirstApiKey(key: NewApiKey): Promise<ApiKeyRecord | undefined>;
  /** The key with this hash, revoked or not, or undefined. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, revoked ones included, by id. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key or it was already revoked. */
  revokeApiKey(id: number): Promise<boolean>;
}
