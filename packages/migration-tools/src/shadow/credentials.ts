/**
 * The shadow proxy never widens access: every request it sends, served or mirrored, carries exactly the caller's own
 * credentials. A per-host header (`--old-header`, `--new-header`) may not be a credential: a blanket key would answer
 * an anonymous caller with another company's figures. Where the old host's credentials are not valid on the new one,
 * an explicit map (`--credential-map FILE`) names, for each old credential, the new one it stands for: a request to
 * the new service carrying a mapped old credential carries its new counterpart instead (and a request to the old host
 * a mapped new one's old counterpart), served or mirrored; any other credential goes as it came.
 */
import { readFileSync } from 'node:fs';

/** The headers that carry a caller's identity. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'x-apikey',
  'authorization',
  'proxy-authorization',
  'cookie',
]);

export class CredentialOptionError extends Error {}

/** Refuses a per-host header that is a credential, naming the option and what to use instead. */
export function refuseCredentialHeaders(headers: Record<string, string>, option: string): void {
  for (const name of Object.keys(headers)) {
    if (CREDENTIAL_HEADERS.has(name.toLowerCase()))
      throw new CredentialOptionError(
        `${option} '${name}' is a credential: the proxy sends each caller's own credentials, never one for all ` +
          '(it would show anonymous callers what that key may read); map old credentials to new ones with ' +
          '--credential-map FILE',
      );
  }
}

/** One mapped credential: a header as the old host takes it, and as the new service takes it. */
export interface CredentialPair {
  old: { name: string; value: string };
  new: { name: string; value: string };
}

function header(text: unknown, where: string): { name: string; value: string } {
  const at = typeof text === 'string' ? text.indexOf(':') : -1;
  const name = at > 0 ? (text as string).slice(0, at).trim() : '';
  const value = at > 0 ? (text as string).slice(at + 1).trim() : '';
  if (!name || !value || !CREDENTIAL_HEADERS.has(name.toLowerCase()))
    throw new CredentialOptionError(
      `${where}: expected a credential header 'Name: value' (${[...CREDENTIAL_HEADERS].join(', ')}), ` +
        `got ${JSON.stringify(text)}`,
    );
  return { name, value };
}

/**
 * `--credential-map FILE`: a JSON list of `{ "old": "X-ApiKey: <old host's>", "new": "X-ApiKey: <new service's>" }`,
 * one per caller; an old credential is mapped once.
 */
export function loadCredentialMap(file: string): CredentialPair[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CredentialOptionError(`--credential-map ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new CredentialOptionError(`--credential-map ${file}: expected a JSON list`);
  const pairs = parsed.map((entry: unknown, i) => {
    const { old, new: neu } = (entry ?? {}) as Record<string, unknown>;
    const where = `--credential-map ${file} [${i}]`;
    return { old: header(old, `${where}.old`), new: header(neu, `${where}.new`) };
  });
  const seen = new Set<string>();
  for (const [i, pair] of pairs.entries()) {
    const key = `${pair.old.name.toLowerCase()}\n${pair.old.value}`;
    if (seen.has(key))
      throw new CredentialOptionError(`--credential-map ${file} [${i}]: that old credential is mapped twice`);
    seen.add(key);
  }
  return pairs;
}

/** Where a request goes: the old host (old credentials) or the new service (new ones). */
export type CredentialSide = 'old' | 'new';

function counterpart(
  map: readonly CredentialPair[],
  name: string,
  value: string,
  to: CredentialSide,
): { name: string; value: string } | undefined {
  const lower = name.toLowerCase();
  const from = to === 'new' ? 'old' : 'new';
  const pair = map.find((p) => p[from].name.toLowerCase() === lower && p[from].value === value);
  return pair?.[to];
}

/**
 * The caller's headers for a request to `to`: each credential the map names for the other side replaced by its
 * counterpart; every other header, credentials included, as the caller sent it.
 */
export function mirroredHeaders(
  headers: Record<string, string>,
  map: readonly CredentialPair[],
  to: CredentialSide,
): Record<string, string> {
  if (!map.length) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const mapped = counterpart(map, name, value, to);
    if (mapped) out[mapped.name.toLowerCase()] = mapped.value;
    else out[name] = value;
  }
  return out;
}

/** The same for a raw header list (`[name, value, …]`), as the proxy forwards it to the host it serves from. */
export function mirroredRawHeaders(
  raw: readonly string[],
  map: readonly CredentialPair[],
  to: CredentialSide,
): string[] {
  if (!map.length) return [...raw];
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const mapped = counterpart(map, raw[i]!, raw[i + 1]!, to);
    out.push(mapped?.name ?? raw[i]!, mapped?.value ?? raw[i + 1]!);
  }
  return out;
}
