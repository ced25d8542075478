/**
 * One self-contained HTML file (styles inline, no script, no network): the summary by endpoint and by rule, then
 * each request with differences: the differing fields, then old and new bodies side by side (`diff` makes the
 * patch, diff2html renders it).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTwoFilesPatch } from 'diff';
import { html as diffHtml } from 'diff2html';
import { html, SafeHtml } from '../reports/html.ts';
import type { CompareReport } from './run.ts';
import type { ExchangeRecord } from './types.ts';
import { describeDiff, type GroupSummary } from './summary.ts';

const require = createRequire(import.meta.url);
export const DIFF2HTML_CSS = readFileSync(require.resolve('diff2html/bundles/css/diff2html.min.css'), 'utf8');

export const PAGE_CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1f2328; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 0; }
table.summary { border-collapse: collapse; margin: .5rem 0 1rem; }
table.summary th, table.summary td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; vertical-align: top; }
table.summary td.n { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { font-size: 1.1rem; padding: .5rem .75rem; border-radius: 6px; display: inline-block; }
.verdict.pass { background: #dafbe1; } .verdict.fail { background: #ffebe9; }
code, .path { font-family: ui-monospace, monospace; font-size: 12.5px; }
section.exchange { border: 1px solid #d0d7de; border-radius: 6px; padding: .75rem; margin: 1rem 0; }
.meta { color: #59636e; } ul.fields { margin: .5rem 0; }
`;

function groupTable(groups: GroupSummary[]): SafeHtml {
  return html`<table class="summary"><thead><tr><th>name</th><th>requests</th><th>identical</th><th>different</th><th>noise only</th><th>allowed only</th><th>skipped</th><th>fields that differ (how often)</th><th>noise</th></tr></thead><tbody>${groups.map((g) => html`<tr>
    <td><code>${g.name}</code></td><td class="n">${g.requests}</td><td class="n">${g.identical}</td><td class="n">${g.different}</td><td class="n">${g.noiseOnly}</td><td class="n">${g.allowedOnly}</td><td class="n">${g.skipped}</td>
    <td>${g.fields.map((f) => html`<div><span class="path">${f.path}</span> ×${f.count} <span class="meta">e.g. ${f.example}</span></div>`)}</td>
    <td>${g.noise.map((f) => html`<div><span class="path">${f.path}</span> ×${f.count}</div>`)}</td></tr>`)}</tbody></table>`;
}

function sideBySide(record: ExchangeRecord): SafeHtml {
  if (!record.bodies) return html``;
  const patch = createTwoFilesPatch('old ← body → new', 'old ← body → new', `${record.bodies.old}\n`, `${record.bodies.new}\n`, '', '', { context: 3 });
  return new SafeHtml(diffHtml(patch, { outputFormat: 'side-by-side', drawFileList: false, matching: 'lines', diffStyle: 'word' }));
}

export function exchangeSection(r: ExchangeRecord): SafeHtml {
  const origin = r.request.origin;
  const from = origin.rule ?? `${origin.source}${origin.file ? ` ${origin.file}` : ''}${origin.line ? `:${origin.line}` : ''}`;
  return html`<section class="exchange" id="exchange-${r.id}">
  <h3><code>${r.request.method} ${r.request.url}</code></h3>
  <div class="meta">${r.endpoint} · from ${from} · old ${r.old?.status ?? ''} ${r.old?.contentType ?? ''} · new ${r.new?.status ?? ''} ${r.new?.contentType ?? ''}</div>
  <ul class="fields">${r.differences.map((d) => html`<li><span class="path">${d.path}</span>: ${describeDiff(d)}</li>`)}</ul>
  ${r.noise.length ? html`<div class="meta">noise: ${r.noise.map((d) => d.path).join(', ')}</div>` : ''}
  ${sideBySide(r)}
</section>`;
}

export function renderHtmlReport(report: CompareReport, options: { maxExchanges?: number } = {}): string {
  const t = report.summary.totals;
  const differing = report.exchanges.filter((e) => e.outcome === 'different');
  const shown = differing.slice(0, options.maxExchanges ?? 300);
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Compare report: ${report.hosts.old} vs ${report.hosts.new}</title>
<style>${new SafeHtml(DIFF2HTML_CSS)}</style><style>${new SafeHtml(PAGE_CSS)}</style></head>
<body>
<h1>Compare report</h1>
<p>old <code>${report.hosts.old}</code>${report.hosts.old2 !== report.hosts.old ? html` (noise from <code>${report.hosts.old2}</code>)` : ''} · new <code>${report.hosts.new}</code> · ${report.startedAt} → ${report.finishedAt}</p>
<p class="verdict ${t.different ? 'fail' : 'pass'}" id="verdict">${t.different ? `${t.different} of ${t.requests} requests differ` : `no differences in ${t.requests} requests`} (${t.identical} identical, ${t.noiseOnly} noise only, ${t.allowedOnly} allowed only, ${t.skipped} skipped, ${t.errors} transport errors)</p>
<p class="meta">Compared: status, headers ${report.headers.join(', ')}, bodies field by field. Rules: ${report.rules.length ? report.rules.join('; ') : 'none'}.</p>
<h2>By endpoint</h2>${groupTable(report.summary.byEndpoint)}
<h2>By rule</h2>${groupTable(report.summary.byRule)}
${report.summary.allowedBy.length ? html`<h2>Allowed by rules</h2><ul>${report.summary.allowedBy.map((a) => html`<li><code>${a.rule}</code> ×${a.count}</li>`)}</ul>` : ''}
${report.issues.length ? html`<h2>Source lines skipped</h2><ul>${report.issues.map((i) => html`<li><code>${i.file}:${i.line}</code> ${i.reason}</li>`)}</ul>` : ''}
<h2>Requests that differ</h2>
${shown.length ? shown.map(exchangeSection) : html`<p>None.</p>`}
${differing.length > shown.length ? html`<p>… ${differing.length - shown.length} more in the JSON report.</p>` : ''}
</body></html>
`;
  return page.text;
}
