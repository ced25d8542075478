/**
 * AUTH: `apikey` — reports need a key for their company (the default); `none` — every operation is public, no key is
 * read.
 */
export type AuthMode = 'apikey' | 'none';
export const AUTH_MODES: readonly AuthMode[] = ['apikey', 'none'];
