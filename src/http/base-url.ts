/**
 * `<protocol>://<host>` of a request, for the absolute links the service writes (report Url, WSDL address,
 * native types' BaseUrl), as ServiceStack derived them from the request URL. Protocol and host follow Express
 * (and so its `trust proxy` setting); a Host header that is not a plain host[:port] is not reflected.
 */
import type { Request } from 'express';

/** host[:port], a bracketed IPv6 literal, or a registered name. */
const SAFE_HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/;

export function requestBaseUrl(req: Request): string {
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const host = req.host;
  return `${protocol}://${host && SAFE_HOST.test(host) ? host : 'localhost'}`;
}
