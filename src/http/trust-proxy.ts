/**
 * TRUST_PROXY → Express's `trust proxy` setting: which peers may speak for the client through X-Forwarded-For,
 * -Proto and -Host (req.ip, req.protocol, req.host). Unset/`false`: none (the default: headers from anyone else
 * are ignored). A comma list of addresses, CIDR subnets or proxy-addr's names (`loopback`, `linklocal`,
 * `uniquelocal`): only those. A number: that many hops. `true`: every peer (only when nothing but the proxy can
 * reach the service).
 */
import proxyaddr from 'proxy-addr';

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
      `${env} must be false, true, a hop count, or a comma list of addresses, subnets or loopback/linklocal/uniquelocal: ${(error as Error).message}`,
    );
  }
  return list;
}
