/**
 * The flat report's own formats, rendered from the whole FlatReportResult: the HTML page (with its chart and links
 * to the other formats), CSV (the wide form) and XLSX, the last two as downloads. Another result has no form here.
 */
import { Keywords } from '../contract/keywords.ts';
import { FlatReportResult } from '../reports/flat-report-result.ts';
import { renderCsv } from '../reports/render-csv.ts';
import { renderHtml, type HtmlAssets } from '../reports/render-html.ts';
import { renderXlsx } from '../reports/render-xlsx.ts';
import { reportFileName } from '../reports/report-meta.ts';
import type { FormatEntry } from './registry.ts';

/** CSP of the report page: only the service's own scripts and styles. */
export const REPORT_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action " +
  "'none'; frame-ancestors 'self'";

/**
 * The same request in another format: path + `.ext`, the query kept (an API key in it, say) but `format` and
 * `callback`.
 */
function formatLink(originalUrl: string, pathname: string, extension: string): string {
  const query = new URLSearchParams(originalUrl.includes('?') ? originalUrl.slice(originalUrl.indexOf('?') + 1) : '');
  query.delete(Keywords.format);
  query.delete(Keywords.callback);
  const rest = query.toString();
  return `${pathname}.${extension}${rest ? `?${rest}` : ''}`;
}

/**
 * The report page; `assets` are the paths (under the service's public path) of the page's script, style and chart
 * library.
 */
export function reportHtmlFormat(assets: HtmlAssets): FormatEntry {
  return {
    format: 'html',
    mediaType: 'text/html',
    contentType: 'text/html; charset=utf-8',
    preferred: true,
    linksToRequest: true,
    writeResult(result, ctx) {
      if (!(result instanceof FlatReportResult)) return undefined;
      const pathname = new URL(result.dto.Url).pathname;
      const links = {
        json: formatLink(ctx.originalUrl, pathname, 'json'),
        csv: formatLink(ctx.originalUrl, pathname, 'csv'),
        xlsx: formatLink(ctx.originalUrl, pathname, 'xlsx'),
      };
      const at = {
        css: ctx.publicPath + assets.css,
        chartJs: ctx.publicPath + assets.chartJs,
        pageJs: ctx.publicPath + assets.pageJs,
      };
      return {
        body: renderHtml(result.report, result.meta, links, at),
        headers: { 'Content-Security-Policy': REPORT_PAGE_CSP },
      };
    },
  };
}

export const reportCsvFormat: FormatEntry = {
  format: 'csv',
  mediaType: 'text/csv',
  contentType: 'text/csv; charset=utf-8',
  writeResult: (result) =>
    result instanceof FlatReportResult
      ? { body: renderCsv(result.report), attachment: reportFileName(result.meta, 'csv') }
      : undefined,
};

export const reportXlsxFormat: FormatEntry = {
  format: 'xlsx',
  mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  writeResult: async (result) =>
    result instanceof FlatReportResult
      ? { body: await renderXlsx(result.report, result.meta), attachment: reportFileName(result.meta, 'xlsx') }
      : undefined,
};
