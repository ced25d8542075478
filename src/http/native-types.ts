/**
 * ServiceStack's "Add ServiceStack Reference" endpoints: `GET /types/typescript` and `GET /types/csharp` serve the
 * DTO sources generated at build time (generated/native-types.ts) with the header's Date and BaseUrl filled in for
 * this request, as `text/plain; charset=utf-8` (NativeTypesService). `typescript-ref <url>` / `csharp-ref <url>`
 * fetch these.
 */
import { requestBaseUrl } from './base-url.ts';
import { Router, type Request } from 'express';
import { csharpNativeTypes, typescriptNativeTypes } from '../../generated/native-types.ts';

export const NATIVE_TYPES_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** `yyyy-MM-dd HH:mm:ss`, as ServiceStack wrote `DateTime.Now.ToString("s")` with the `T` replaced (UTC here). */
function headerDate(now: Date): string {
  return now.toISOString().slice(0, 19).replace('T', ' ');
}

export function fillNativeTypes(template: string, values: { date: Date; baseUrl: string }): string {
  return template.split('{{Date}}').join(headerDate(values.date)).split('{{BaseUrl}}').join(values.baseUrl);
}

export function nativeTypesRoutes(now: () => Date): Router {
  const router = Router();
  const serve = (template: string) => (req: Request, res: import('express').Response) => {
    res.setHeader('Content-Type', NATIVE_TYPES_CONTENT_TYPE);
    res.send(Buffer.from(fillNativeTypes(template, { date: now(), baseUrl: requestBaseUrl(req) })));
  };
  router.get('/types/typescript', serve(typescriptNativeTypes));
  router.get('/types/csharp', serve(csharpNativeTypes));
  return router;
}
