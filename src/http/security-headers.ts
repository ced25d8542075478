/** The service's helmet options, for helmet's middleware (src/app.ts). */
import type { HelmetOptions } from 'helmet';

/** No CSP here: HTML resources set their own; JSONP must stay loadable cross-origin. */
export const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};
