/** The settings a store keeps for every instance over it. */
export interface SettingsStore {
  /**
   * The secret that signs report links (GetFlatResponse.Url), the same for every instance over this store:
   * read from `settings`, created (random, 256 bits) on first use. Concurrent first calls agree on one value.
   */
  linkSecret(): Promise<string>;
}
