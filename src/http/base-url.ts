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
