/**
 * The report resource's formats, chosen the way the rest of the API chooses (negotiateFormat: path extension,
 * `?callback`, `?format=`, Accept): JSON (the GetFlatResponse DTO, through the legacy writer, so JSONP works),
 * HTML (the default for browsers: their Accept names text/html), CSV and XLSX downloads. Anything else → JSON.
 */
import type { Request } from 'express';
import type { GetFlatResponse } from '../contract/dtos.ts';
import { renderCsv } from '../reports/render-csv.ts';
import { renderHtml } from '../reports/render-html.ts';
import { renderXlsx } from '../reports/render-xlsx.ts';
import { reportFileName } from '../reports/report-meta.ts';
import type { BuiltFlatReport } from '../services/get-flat-report.ts';
import { MEDIA_TYPES, negotiateFormat, type WireFormat } from './format.ts';
import { Keywords } from './keywords.ts';
import { RawBody } from './raw-body.ts';
import { wireContext } from './wire-context.ts';
import { reportAssets } from './static-pages.ts';

/** In negotiation order: JSON first, so that `Accept: application/json, text/html` stays JSON. */
export const REPORT_FORMATS: readonly WireFormat[] = ['json', 'html', 'csv', 'xlsx'];

/** CSP of the report page: only the service's own scripts and styles. */
export const REPORT_PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/** The same request in another format: path + `.ext`, the query kept (an API key in it, say) but `format`. */
function formatLink(req: Request, pathname: string, extension: string): string {
  const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
  query.delete(Keywords.format);
  query.delete(Keywords.callback);
  const rest = query.toString();
  return `${pathname}.${extension}${rest ? `?${rest}` : ''}`;
}

export async function reportResponse(req: Request, built: BuiltFlatReport): Promise<GetFlatResponse | RawBody> {
  const format = negotiateFormat(req, wireContext(req.res!).extensionFormat, REPORT_FORMATS, 'json');
  const { report, meta, response } = built;
  switch (format) {
    case 'csv':
      return new RawBody(`${MEDIA_TYPES.csv}; charset=utf-8`, Buffer.from(renderCsv(report), 'utf8'), reportFileName(meta, 'csv'));
    case 'xlsx':
      return new RawBody(MEDIA_TYPES.xlsx, await renderXlsx(report, meta), reportFileName(meta, 'xlsx'));
    case 'html': {
      const pathname = new URL(response.Url).pathname;
      const page = renderHtml(report, meta, {
        json: formatLink(req, pathname, 'json'),
        csv: formatLink(req, pathname, 'csv'),
        xlsx: formatLink(req, pathname, 'xlsx'),
      }, reportAssets(req));
      return new RawBody(`${MEDIA_TYPES.html}; charset=utf-8`, Buffer.from(page, 'utf8'), undefined, { 'Content-Security-Policy': REPORT_PAGE_CSP });
    }
    default:
      return response;
  }
}
