/**
 * One self-contained HTML file (styles inline, no script, no network): the summary by endpoint and by rule, then
 * requests with differences: the differing fields, then old and new bodies side by side (`diff` makes the patch,
 * diff2html renders it). It stays small whatever the run: only the first few requests of each endpoint and rule are
 * shown (the rest counted), each with its first fields and a patch cut at a size; the JSON report has everything.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTwoFilesPatch } from 'diff';
import { html as diffHtml } from 'diff2html';
import { html, SafeHtml } from '../../../../src/tooling-exports.ts';
import type { CompareReport } from './run.ts';
import type { ExchangeRecord, FieldDiff } from './types.ts';
import { describeDiff, ruleOf, type FieldCount, type GroupSummary } from './summary.ts';

export interface HtmlReportLimits {
  /** Requests shown per endpoint and rule (default 2); the others are counted. */
  perGroup?: number;
  /** Requests shown in all (default 60). */
  maxExchanges?: number;
  /** Fields listed per request and per summary row (default 10). */
  fields?: number;
  /** Characters of the unified patch rendered side by side per request (default 3000). */
  patchChars?: number;
}

const DEFAULT_LIMITS: Required<HtmlReportLimits> = { perGroup: 2, maxExchanges: 60, fields: 10, patchChars: 3000 };

const require = createRequire(import.meta.url);
export const DIFF2HTML_CSS = readFileSync(require.resolve('diff2html/bundles/css/diff2html.min.css'), 'utf8');

export const PAGE_CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1f2328; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 0; }
table.summary { border-collapse: collapse; margin: .5rem 0 1rem; }
table.summary th, table.summary td {
  border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; vertical-align: top;
}
table.summary td.n { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { font-size: 1.1rem; padding: .5rem .75rem; border-radius: 6px; display: inline-block; }
.verdict.pass { background: #dafbe1; } .verdict.fail { background: #ffebe9; }
code, .path { font-family: ui-monospace, monospace; font-size: 12.5px; }
section.exchange { border: 1px solid #d0d7de; border-radius: 6px; padding: .75rem; margin: 1rem 0; }
.meta { color: #59636e; } ul.fields { margin: .5rem 0; }
`;

function more(n: number, what: string): SafeHtml | string {
  return n > 0 ? html`<div class="meta">… ${n} more ${what}</div>` : '';
}

function fieldList(fields: FieldCount[], max: number, noise: boolean): SafeHtml {
  const field = (f: FieldCount) => {
    const where = f.endpoints && f.endpoints > 1 ? ` in ${f.endpoints} endpoints` : '';
    const meta = noise ? (f.why ?? '') : `e.g. ${f.example}`;
    return html`<div><span class="path">${f.path}</span> ×${f.count}${where} <span class="meta">${meta}</span></div>`;
  };
  return html`${fields.slice(0, max).map(field)}${more(fields.length - max, 'fields')}`;
}

function groupTable(groups: GroupSummary[], limits: Required<HtmlReportLimits>): SafeHtml {
  return html`<table class="summary"><thead><tr><th>name</th><th>requests</th><th>identical</th><th>different</th>
<th>noise only</th><th>allowed only</th><th>skipped</th><th>fields that differ (how often)</th><th>noise</th></tr>
</thead><tbody>${groups.map(
    (g) => html`<tr>
    <td><code>${g.name}</code></td><td class="n">${g.requests}</td><td class="n">${g.identical}</td>
    <td class="n">${g.different}</td><td class="n">${g.noiseOnly}</td><td class="n">${g.allowedOnly}</td>
    <td class="n">${g.skipped}</td>
    <td>${fieldList(g.fields, limits.fields, false)}</td>
    <td>${fieldList(g.noise, limits.fields, true)}</td></tr>`,
  )}</tbody></table>`;
}

/** Edits a patch may hold before the side-by-side view shows the bodies' first lines instead (diff's maxEditLength). */
const MAX_EDITS = 400;
const HEAD_LINES = 60;

const headOf = (text: string) => text.split('\n').slice(0, HEAD_LINES).join('\n');

/** The side-by-side diff of the two bodies, its patch cut at `maxChars` (whole lines). */
function sideBySide(record: ExchangeRecord, maxChars: number): SafeHtml {
  if (!record.bodies) return html``;
  // ASCII names: diff2html writes a non-ASCII file name as git's octal escapes (`/342/206/220`); it adds the arrow.
  const [oldName, newName] = ['old body', 'new body'];
  const notes: string[] = [];
  let patch = createTwoFilesPatch(oldName, newName, `${record.bodies.old}\n`, `${record.bodies.new}\n`, '', '', {
    context: 3,
    maxEditLength: MAX_EDITS,
  });
  if (patch === undefined) {
    notes.push(`the bodies differ in more than ${MAX_EDITS} lines: their first ${HEAD_LINES} lines are shown`);
    patch = createTwoFilesPatch(
      oldName,
      newName,
      `${headOf(record.bodies.old)}\n`,
      `${headOf(record.bodies.new)}\n`,
      '',
      '',
      { context: 3 },
    );
  }
  if (patch.length > maxChars) {
    const end = patch.lastIndexOf('\n', maxChars);
    notes.push(`the side-by-side view is cut after ${end} of ${patch.length} characters of patch`);
    patch = patch.slice(0, end + 1);
  }
  const view = diffHtml(patch, {
    outputFormat: 'side-by-side',
    drawFileList: false,
    matching: 'lines',
    diffStyle: 'word',
  });
  return html`${new SafeHtml(view)}${notes.map((n) => html`<div class="meta">${n}</div>`)}`;
}

export function exchangeSection(r: ExchangeRecord, limits: Required<HtmlReportLimits> = DEFAULT_LIMITS): SafeHtml {
  const origin = r.request.origin;
  const from =
    origin.rule ?? `${origin.source}${origin.file ? ` ${origin.file}` : ''}${origin.line ? `:${origin.line}` : ''}`;
  const noise = [...new Set(r.noise.map((d) => d.path))];
  const url = r.request.url.length > 300 ? `${r.request.url.slice(0, 300)}…` : r.request.url;
  const side = (answer: ExchangeRecord['old']) => `${answer?.status ?? ''} ${answer?.contentType ?? ''}`;
  const difference = (d: FieldDiff) => html`<li><span class="path">${d.path}</span>: ${describeDiff(d)}</li>`;
  const moreNoise = noise.length > limits.fields ? ` … ${noise.length - limits.fields} more` : '';
  return html`<section class="exchange" id="exchange-${r.id}">
  <h3><code>${r.request.method} ${url}</code></h3>
  <div class="meta">${r.endpoint} · from ${from} · old ${side(r.old)} · new ${side(r.new)}</div>
  <ul class="fields">${r.differences.slice(0, limits.fields).map(difference)}</ul>
  ${more(r.differences.length - limits.fields, 'fields differ')}
  ${noise.length ? html`<div class="meta">noise: ${noise.slice(0, limits.fields).join(', ')}${moreNoise}</div>` : ''}
  ${sideBySide(r, limits.patchChars)}
</section>`;
}

/**
 * The first `perGroup` differing requests of each endpoint and rule, at most `maxExchanges` in all; the rest counted
 * per group.
 */
function chooseShown(
  differing: ExchangeRecord[],
  limits: Required<HtmlReportLimits>,
): { shown: ExchangeRecord[]; hidden: Map<string, number> } {
  const seen = new Map<string, number>();
  const hidden = new Map<string, number>();
  const shown: ExchangeRecord[] = [];
  for (const r of differing) {
    const group = `${r.endpoint} · ${ruleOf(r)}`;
    const n = seen.get(group) ?? 0;
    seen.set(group, n + 1);
    if (n < limits.perGroup && shown.length < limits.maxExchanges) shown.push(r);
    else hidden.set(group, (hidden.get(group) ?? 0) + 1);
  }
  return { shown, hidden };
}

export function renderHtmlReport(report: CompareReport, options: HtmlReportLimits = {}): string {
  const limits = {
    ...DEFAULT_LIMITS,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  } as Required<HtmlReportLimits>;
  const t = report.summary.totals;
  const differing = report.exchanges.filter((e) => e.outcome === 'different');
  const { shown, hidden } = chooseShown(differing, limits);
  const hiddenTotal = differing.length - shown.length;
  const { hosts, summary } = report;
  const verdict = t.different
    ? `${t.different} of ${t.requests} requests differ`
    : `no differences in ${t.requests} requests`;
  const list = <T>(items: T[] | undefined, title: string, item: (i: T) => SafeHtml) =>
    items?.length ? html`<h2>${title}</h2><ul>${items.map(item)}</ul>` : '';
  const fields = (title: string, counts: FieldCount[] | undefined, noise: boolean) =>
    counts?.length ? html`<h2>${title}</h2>${fieldList(counts, limits.fields * 3, noise)}` : '';
  const notShown = [...hidden].map(
    ([group, n]) => html`<tr><td><code>${group}</code></td><td class="n">${n}</td></tr>`,
  );
  const notShownTable = hidden.size
    ? html`<h3>Not shown, by endpoint and rule</h3>
<table class="summary" id="not-shown"><tbody>${notShown}</tbody></table>`
    : '';
  const shownNote = hiddenTotal
    ? html`<p class="meta" id="shown">
The first ${shown.length} of ${differing.length} (at most ${limits.perGroup} per endpoint and rule);
the others are in the JSON report.</p>`
    : '';
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Compare report: ${report.hosts.old} vs ${report.hosts.new}</title>
<style>${new SafeHtml(DIFF2HTML_CSS)}</style><style>${new SafeHtml(PAGE_CSS)}</style></head>
<body>
<h1>Compare report</h1>
<p>old <code>${hosts.old}</code>${hosts.old2 !== hosts.old ? html` (noise from <code>${hosts.old2}</code>)` : ''}
· new <code>${hosts.new}</code> · ${report.startedAt} → ${report.finishedAt}</p>
<p class="verdict ${t.different ? 'fail' : 'pass'}" id="verdict">${verdict} (${t.identical} identical,
${t.noiseOnly} noise only, ${t.allowedOnly} allowed only, ${t.skipped} skipped, ${t.errors} transport errors)</p>
<p class="meta">Compared: status, headers ${report.headers.join(', ')}, bodies field by field. Rules:
${report.rules.length ? report.rules.join('; ') : 'none'}.</p>
${fields('Differences (each field once)', summary.differences, false)}
${fields('Noise', summary.noise, true)}
<h2>By endpoint</h2>${groupTable(summary.byEndpoint, limits)}
<h2>By rule</h2>${groupTable(summary.byRule, limits)}
${list(summary.allowedBy, 'Allowed by rules', (a) => html`<li><code>${a.rule}</code> ×${a.count}</li>`)}
${list(summary.skippedBecause, 'Requests skipped (not replayed)', (s) => html`<li>×${s.count} ${s.reason}</li>`)}
${list(report.issues, 'Source lines skipped', (i) => html`<li><code>${i.file}:${i.line}</code> ${i.reason}</li>`)}
<h2>Requests that differ</h2>
${shownNote}
${shown.length ? shown.map((r) => exchangeSection(r, limits)) : html`<p>None.</p>`}
${notShownTable}
</body></html>
`;
  return page.text;
}
