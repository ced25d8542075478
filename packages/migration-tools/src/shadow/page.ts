/**
 * The live page (`/_shadow`): totals and the mirror queue, old against new latency (p50/p99), counts per endpoint
 * with the fields that differ and the noise, then the latest differing exchanges as the compare HTML report shows
 * them (the differing fields, old and new bodies side by side). No script: it reloads itself every few seconds.
 */
import { DIFF2HTML_CSS, exchangeSection, PAGE_CSS } from '../compare/html-report.ts';
import { html, SafeHtml } from '../../../../src/tooling-exports.ts';
import { JSON_PATH } from './options.ts';
import type { Counts, LatencySummary, ShadowSnapshot } from './stats.ts';

export const REFRESH_SECONDS = 5;
/** Inline styles only, nothing loaded, nothing run. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const SHADOW_CSS = `
table.summary td.bad { background: #ffebe9; } table.summary td.good { background: #dafbe1; }
.latency td { text-align: right; }
`;

const COUNT_COLUMNS: [keyof Counts, string][] = [
  ['served', 'served'],
  ['mirrored', 'mirrored'],
  ['identical', 'identical'],
  ['different', 'different'],
  ['noiseOnly', 'noise only'],
  ['allowedOnly', 'allowed only'],
  ['errors', 'errors'],
  ['dropped', 'dropped'],
  ['skipped', 'skipped'],
];

const ms = (value: number | null) => (value === null ? '—' : value.toFixed(1));

function countCells(counts: Counts): SafeHtml[] {
  return COUNT_COLUMNS.map(([key]) => {
    const flag =
      (key === 'different' || key === 'errors' || key === 'dropped') && counts[key] > 0
        ? 'bad'
        : key === 'identical' && counts[key] > 0
          ? 'good'
          : '';
    return html`<td class="n ${flag}" data-count="${key}">${counts[key]}</td>`;
  });
}

function latencyCells(latency: { old: LatencySummary; new: LatencySummary }): SafeHtml {
  return html`<td class="n" data-latency="old-p50">${ms(latency.old.p50)}</td>
<td class="n" data-latency="old-p99">${ms(latency.old.p99)}</td>
<td class="n" data-latency="new-p50">${ms(latency.new.p50)}</td>
<td class="n" data-latency="new-p99">${ms(latency.new.p99)}</td>`;
}

function reasons(label: string, counts: Record<string, number>): SafeHtml | string {
  const entries = Object.entries(counts);
  return entries.length ? html` · ${label}: ${entries.map(([reason, n]) => `${reason} ×${n}`).join(', ')}` : '';
}

function endpointRow(e: ShadowSnapshot['endpoints'][number]): SafeHtml {
  const field = (f: (typeof e.fields)[number]) =>
    html`<div><span class="path">${f.path}</span> ×${f.count} <span class="meta">e.g. ${f.example}</span></div>`;
  return html`<tr data-endpoint="${e.endpoint}"><td><code>${e.endpoint}</code></td>
${countCells(e)}${latencyCells(e.latency)}
<td>${e.fields.map(field)}</td>
<td>${e.noise.map((f) => html`<div><span class="path">${f.path}</span> ×${f.count}</div>`)}</td></tr>`;
}

/** The page; `jsonHref` is its JSON twin's address (with the page's token). */
export function renderShadowPage(s: ShadowSnapshot, jsonHref = JSON_PATH): string {
  const t = s.totals;
  const verdict =
    t.mirrored === 0
      ? 'nothing compared yet'
      : t.different
        ? `${t.different} of ${t.mirrored} mirrored requests differ`
        : `no differences in ${t.mirrored} mirrored requests`;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<title>Shadow: ${s.hosts.old} vs ${s.hosts.new}</title>
<style>${new SafeHtml(DIFF2HTML_CSS)}</style><style>${new SafeHtml(PAGE_CSS)}</style>
<style>${new SafeHtml(SHADOW_CSS)}</style></head>
<body>
<h1>Shadow traffic</h1>
<p>serving <strong id="serving">${s.serving}</strong> · old
<code>${s.hosts.old}</code>${s.hosts.old2 !== s.hosts.old ? html` (noise from <code>${s.hosts.old2}</code>)` : ''} ·
new <code>${s.hosts.new}</code> · since ${s.startedAt} · as of ${s.at} · <a href="${jsonHref}">JSON</a></p>
<p class="verdict ${t.different || t.errors ? 'fail' : 'pass'}" id="verdict">${verdict} (${t.served} served,
${t.identical} identical, ${t.noiseOnly} noise only, ${t.allowedOnly} allowed only, ${t.errors} errors, ${t.dropped}
dropped, ${t.skipped} skipped)</p>
<p class="meta" id="queue">mirror queue: ${s.queue.waitingOrInFlight} waiting or in flight of ${s.queue.limit}
(${s.queue.concurrency} at once); ${s.listener.connections} connections accepted
${reasons('skipped', s.skippedBecause)}${reasons('dropped', s.droppedBecause)}</p>
<p class="meta ${s.breaker.state === 'closed' ? '' : 'fail'}" id="breaker">
circuit breaker: <strong data-state="${s.breaker.state}">${s.breaker.state}</strong> (opens after ${s.breaker.threshold}
failures in a row, probes every ${s.breaker.delayMs} ms; ${s.breaker.failuresInARow} in a row now, opened
${s.breaker.opened}×)</p>
<h2>Latency (ms, latest answers)</h2>
<table class="summary latency" id="latency"><thead><tr><th></th><th>old p50</th><th>old p99</th><th>new p50</th>
<th>new p99</th></tr></thead>
<tbody><tr><th>all endpoints</th>${latencyCells(s.latency)}</tr></tbody></table>
<h2>By endpoint</h2>
<table class="summary" id="endpoints"><thead><tr>
<th>endpoint</th>${COUNT_COLUMNS.map(([, label]) => html`<th>${label}</th>`)}<th>old p50</th><th>old p99</th>
<th>new p50</th><th>new p99</th><th>fields that differ (how often)</th><th>noise</th></tr></thead>
<tbody>${s.endpoints.map(endpointRow)}
<tr class="totals"><th>all</th>${countCells(t)}${latencyCells(s.latency)}<td></td><td></td></tr></tbody></table>
<h2>Latest differences</h2>
${s.latest.length ? s.latest.map((record) => exchangeSection(record)) : html`<p>None.</p>`}
</body></html>
`;
  return page.text;
}
