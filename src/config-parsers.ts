/**
 * The parsers of the settings that say where the service is and whom it trusts (BASE_PATH, PUBLIC_BASE_URL,
 * TRUST_PROXY), for src/config.ts: each returns the setting's value or throws naming the variable and the form.
 */
import proxyaddr from 'proxy-addr';

/** Path segments of unreserved characters only: a prefix is written into pages and links unescaped. */
const SAFE_PATH = /^(\/[A-Za-z0-9._~-]+)+$/;

/** BASE_PATH → '' or `/a/b` (leading slash, no trailing slash); throws on anything else. */
export function parseBasePath(raw: string, env = 'BASE_PATH'): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (!SAFE_PATH.test(path) || path.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`${env} must be a path like /reporting (letters, digits, . _ ~ -), got '${raw}'`);
  }
  return path;
}

/** PUBLIC_BASE_URL → `http(s)://host[:port][/path]` without a trailing slash; throws on anything else. */
export function parsePublicBaseUrl(raw: string, env = 'PUBLIC_BASE_URL'): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(
      `${env} must be an absolute http(s) URL such as https://reports.example.com/reporting, got '${raw}'`,
    );
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new Error(`${env} must be an http(s) URL without query, fragment or credentials, got '${raw}'`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '') parseBasePath(path, env);
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * TRUST_PROXY → Express's `trust proxy` setting: which peers may speak for the client through X-Forwarded-For,
 * -Proto and -Host (req.ip, req.protocol, req.host). Unset/`false`: none (the default: headers from anyone else
 * are ignored). A comma list of addresses, CIDR subnets or proxy-addr's names (`loopback`, `linklocal`,
 * `uniquelocal`): only those. A number: that many hops. `true`: every peer (only when nothing but the proxy can
 * reach the service).
 */
export type TrustProxy = boolean | number | string[];

export function parseTrustProxy(raw: string, env = 'TRUST_PROXY'): TrustProxy {
  const value = raw.trim();
  if (/^(false|no|off)$/i.test(value) || value === '') return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(list);
  } catch (error) {
    throw new Error(
      `${env} must be false, true, a hop count, or a comma list of addresses, subnets or ` +
        `loopback/linklocal/uniquelocal: ${(error as Error).message}`,
    );
  }
  return list;
}
