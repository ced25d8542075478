/**
 * Where the service is, for the links it writes. Absolute links (report Url, WSDL address, native types' BaseUrl)
 * start with `requestBaseUrl(req)`: PUBLIC_BASE_URL when it is configured, else `<protocol>://<host><BASE_PATH>`
 * of the request, as ServiceStack derived them from the request URL (protocol and host follow Express, and so its
 * `trust proxy` setting: X-Forwarded-Proto/Host count only from trusted proxies; a Host header that is not a plain
 * host[:port] is not reflected). Root-relative links in pages (assets, the docs page's links) start with
 * `publicPath(req)`, the path of that base.
 */
import type { Express, Request } from 'express';

export interface LinkSettings {
  /** `https://reports.example.com/reporting`: every absolute link starts with it (no trailing slash). */
  publicBaseUrl?: string;
  /** `/reporting`: the path prefix the app is served under ('' = the root). */
  basePath: string;
}

const LINK_SETTINGS = 'linkSettings';

/** host[:port], a bracketed IPv6 literal, or a registered name. */
const SAFE_HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/;
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

export function useLinkSettings(app: Express, settings: LinkSettings): void {
  app.locals[LINK_SETTINGS] = settings;
}

function linkSettings(req: Request): LinkSettings {
  return (req.app?.locals[LINK_SETTINGS] as LinkSettings | undefined) ?? { basePath: '' };
}

export function requestBaseUrl(req: Request): string {
  const { publicBaseUrl, basePath } = linkSettings(req);
  if (publicBaseUrl) return publicBaseUrl;
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const host = req.host;
  return `${protocol}://${host && SAFE_HOST.test(host) ? host : 'localhost'}${basePath}`;
}

/** The path of the service's public base ('' at the root): the prefix of root-relative links in pages. */
export function publicPath(req: Request): string {
  const { publicBaseUrl, basePath } = linkSettings(req);
  return publicBaseUrl ? new URL(publicBaseUrl).pathname.replace(/\/+$/, '') : basePath;
}
