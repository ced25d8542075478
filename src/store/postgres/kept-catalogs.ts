/**
 * Catalogs of companies an instance does not follow (echo names a key's first company), read by SQL and kept until
 * the instance hears of the next change: at most MAX_KEPT, all dropped at each change.
 */
import type { CompanyCatalog } from '../../domain/ledger.ts';

const MAX_KEPT = 1_000;

export class KeptCatalogs {
  private readonly catalogs = new Map<number, Promise<CompanyCatalog | undefined>>();
  private generation = 0;

  /** The company's catalog, kept or read by `read`; a read that a change overtook (or that failed) is not kept. */
  get(companyId: number, read: () => Promise<CompanyCatalog | undefined>): Promise<CompanyCatalog | undefined> {
    let catalog = this.catalogs.get(companyId);
    if (!catalog) {
      if (this.catalogs.size >= MAX_KEPT) this.catalogs.clear();
      const generation = this.generation;
      catalog = read();
      this.catalogs.set(companyId, catalog);
      const forget = () => {
        if (this.catalogs.get(companyId) === catalog) this.catalogs.delete(companyId);
      };
      catalog.then(() => generation !== this.generation && forget(), forget);
    }
    return catalog;
  }

  /** A change was committed (or may have been missed): every kept catalog is dropped. */
  forget(): void {
    this.generation++;
    this.catalogs.clear();
  }
}
