/**
 * ServiceStack's HTML format (`text/html`): the "snapshot" page of a response DTO, following what a real ServiceStack
 * 4.5.14 host served: title `<Request> Snapshot of <MM/dd/yyyy>` (4.5 added the time of day), a heading naming the
 * request DTO, links to
 * the same request in the other formats, the DTO as nested definition lists (objects; names split into words,
 * `CompanyName` → `Company Name`) and tables (lists of objects), dates as `yyyy/MM/dd HH:mm`, links for `http` values,
 * and the JSON data source. Differences, for safety: the page is rendered here rather than by an inline script that
 * put the values into innerHTML unescaped (a stored script), every value is HTML-escaped, no script or CDN is loaded
 * (a Content-Security-Policy says so), and the links are relative (no Host header reflected).
 */
import { Keywords } from '../contract/keywords.ts';
import { dtoDateWallClock } from '../scalars/dates.ts';
import type { FormatEntry } from './registry.ts';

/** A server-rendered page's policy: its own inline styles, no script, nothing loaded (the metadata pages too). */
export const STYLED_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

export interface SnapshotContext {
  /** The request DTO's name (`EchoRequest`). */
  requestDto: string;
  /** The request path without a format suffix, and its query without `format` (for the other-format links). */
  path: string;
  query: URLSearchParams;
  /** Formats to link to, e.g. `['json', 'xml', 'csv', 'jsv']`. */
  otherFormats: readonly string[];
  /** The service's public path ('' at the root, else BASE_PATH): the heading's link to /metadata is under it. */
  publicPath: string;
  now: Date;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The page's splitCase + titleCase: `CompanyName` → `Company Name`. */
export function humanize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/\w\S*/g, (word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase());
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * `11/23/2026`, the heading's date (UTC). 4.5 added the time (`09:03:18`); it is left out so that the same answer is
 * the same bytes from one second to the next (caches, `npm run compare`).
 */
function snapshotDate(d: Date): string {
  return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()}`;
}

function text(value: string): string {
  // A date as its wall clock shows it (in the offset it was sent with).
  const shown = dtoDateWallClock(value);
  if (shown) return `${shown.wallClock.slice(0, 10).replace(/-/g, '/')} ${shown.wallClock.slice(11, 16)}`;
  if (/^https?:\/\//i.test(value)) return `<a href="${escapeHtml(value)}">${escapeHtml(value)}</a>`;
  return escapeHtml(value);
}

function render(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return text(value);
  if (typeof value !== 'object') return escapeHtml(String(value));
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null)) return value.map(render).join(', ');
    const keys = [
      ...new Set(value.flatMap((row) => (typeof row === 'object' && row !== null ? Object.keys(row) : []))),
    ];
    const head = keys.map((k) => `<th>${escapeHtml(humanize(k))}</th>`).join('');
    const rows = value
      .map((row) => `<tr>${keys.map((k) => `<td>${render((row as Record<string, unknown>)[k])}</td>`).join('')}</tr>`)
      .join('');
    return `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
  }
  const members = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
  // One member per line: a changed value is one changed line for a line-by-line diff.
  const member = ([k, v]: [string, unknown]) => `<dt class="ib">${escapeHtml(humanize(k))}</dt><dd>${render(v)}</dd>`;
  return `<dl>${members.map(member).join('\n')}</dl>`;
}

function formatLink(ctx: SnapshotContext, format: string): string {
  const query = new URLSearchParams(ctx.query);
  query.set('format', format);
  return `${ctx.path}?${query.toString()}`;
}

const STYLE = `BODY, H1, H2, H3, DL, DT, DD { margin: 0; padding: 0; color: #444;
  font: 13px/15px Arial, Verdana, Helvetica; }
H1 { text-align: center; font: 24px Helvetica, Verdana, Arial; padding: 20px 0 10px 0; background: #FBFBFB;
  border-bottom: solid 1px #fff; }
H1 I { font-style: normal; color: #0E8F13; }
H1 B { font-weight: normal; color: #069; }
#lnks { border-top: solid 1px #dfdfdf; border-bottom: solid 1px #dfdfdf; margin: 0 0 10px 0; padding: 5px;
  background: #f1f1f1; line-height: 20px; text-align: center; }
#lnks B { padding: 0 3px; }
#body { padding: 20px; }
A { color: #337ab7; text-decoration: none; }
TABLE { border-collapse: collapse; border: solid 1px #ccc; clear: left; }
TH { text-align: left; padding: 4px 8px; background: #f1f1f1; white-space: nowrap; font-weight: bold; }
TD { padding: 8px 8px 0 8px; vertical-align: top; }
DL { clear: left; }
DT { margin: 10px 0 5px 0; font: bold 18px Helvetica, Verdana, Arial; min-width: 200px; clear: left; float: left;
  white-space: nowrap; }
DD { margin: 5px 10px; font: 18px Arial; padding: 2px; display: block; float: left; }
DL DL DT { font: bold 16px Arial; }
DL DL DD { font: 16px Arial; }
#show-json { clear: left; padding-top: 20px; }
#show-json PRE { white-space: pre-wrap; }`;

/** The snapshot page of `dto` (a response or an ErrorResponse). */
export function htmlSnapshot(dto: unknown, ctx: SnapshotContext): string {
  const when = snapshotDate(ctx.now);
  const links = ctx.otherFormats
    .map((f) => `  <a href="${escapeHtml(formatLink(ctx, f))}">${escapeHtml(f)}</a>`)
    .join('\n');
  const heading =
    `<h1>Snapshot of <i>${escapeHtml(ctx.requestDto)}</i> generated by ` +
    `<a href="${escapeHtml(ctx.publicPath)}/metadata">Reporting Service</a> on <b>${when}</b></h1>`;
  return `<!doctype html>
<html lang="en-us">
<head>
<title>${escapeHtml(ctx.requestDto)} Snapshot of ${when}</title>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<style type="text/css">
${STYLE}
</style>
</head>
<body>

${heading}

<div id="lnks">
  <b>in other formats:</b>
${links}
</div>

<div id="body">
  <div id="content">${render(dto)}</div>
  <details id="show-json"><summary>view json datasource</summary>
<pre>${escapeHtml(JSON.stringify(dto, null, 2) ?? '')}</pre></details>
</div>

</body>
</html>
`;
}

/** The formats the page links to, as 4.5's page did. */
const LINKED_FORMATS = ['json', 'xml', 'csv', 'jsv'];

/** The request's path without an `.html` suffix, and its query without `format` and `callback`. */
function linkBase(originalUrl: string): { path: string; query: URLSearchParams } {
  const at = originalUrl.indexOf('?');
  const path = (at === -1 ? originalUrl : originalUrl.slice(0, at)).replace(/\.html$/, '');
  const query = new URLSearchParams(at === -1 ? '' : originalUrl.slice(at + 1));
  query.delete(Keywords.format);
  query.delete(Keywords.callback);
  return { path, query };
}

/**
 * HTML's DTO form, merged with the report page's entry (src/formats/report-formats.ts) into one `html` format: any
 * DTO (errors included) as the snapshot page.
 */
export const htmlSnapshotForm: Pick<FormatEntry, 'writeDto' | 'predefinedRoutes' | 'linksToRequest'> = {
  predefinedRoutes: true,
  linksToRequest: true,
  writeDto: (dto, ctx) => ({
    body: htmlSnapshot(dto, {
      requestDto: ctx.operation?.requestDto ?? 'Request',
      ...linkBase(ctx.originalUrl),
      otherFormats: LINKED_FORMATS,
      publicPath: ctx.publicPath,
      now: new Date(),
    }),
    headers: { 'Content-Security-Policy': STYLED_PAGE_CSP },
  }),
};
