/**
 * FlatReport → a readable HTML page: the P&L table (section headings, accounts indented by level, section totals
 * and computed rows emphasised, negative figures in parentheses with class `neg`), a chart of Income, Expenses
 * and Net Income per month, and links to the other formats. Every text goes through the escaping `html`
 * template; the chart data travels as a JSON data block read by a script the service serves itself
 * (no inline script, no CDN). Pure: the links and asset paths are given.
 */
import type { FlatReport, FlatRow } from './flat-pnl.ts';
import { html, jsonScriptData, type SafeHtml } from './html.ts';
import type { ReportMeta } from './report-meta.ts';
import { centsToAmount } from './money.ts';
import { MONTH_NAMES } from './periods.ts';

export interface HtmlReportLinks {
  json: string;
  csv: string;
  xlsx: string;
}

export interface HtmlAssets {
  css: string;
  chartJs: string;
  pageJs: string;
}

export interface ChartData {
  labels: string[];
  income: number[];
  expenses: number[];
  netIncome: number[];
}

// Made on first use: the first Intl object of a process loads ICU's locale data, a share of start-up otherwise.
let amountFormat: Intl.NumberFormat | undefined;

/** `1,085.00`, negatives `(15.00)`. */
export function formatAmount(cents: number): string {
  amountFormat ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const text = amountFormat.format(Math.abs(cents) / 100);
  return cents < 0 ? `(${text})` : text;
}

function longDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${d} ${MONTH_NAMES[m - 1]} ${y}`;
}

function sumRows(rows: (FlatRow | undefined)[], width: number): number[] {
  return Array.from({ length: width }, (_, i) => rows.reduce((s, r) => s + (r?.cents[i] ?? 0), 0));
}

/**
 * The chart's series per period (Total column excluded): Income = Income + Other Income,
 * Expenses = COGS + Expenses + Other Expenses, so that Income − Expenses = Net Income in every month.
 */
export function chartData(report: FlatReport): ChartData {
  const width = report.periods.length;
  const total = (section: string) => report.rows.find((r) => r.rowType === 'SectionTotal' && r.section === section);
  const net = report.rows.find((r) => r.rowType === 'Computed' && r.rowName === 'Net Income');
  const dollars = (cents: number[]) => cents.map(centsToAmount);
  return {
    labels: report.periods.map((p) => p.label),
    income: dollars(sumRows([total('Income'), total('Other Income')], width)),
    expenses: dollars(sumRows([total('COGS'), total('Expenses'), total('Other Expenses')], width)),
    netIncome: dollars(sumRows([net], width)),
  };
}

function rowClass(row: FlatRow): string {
  if (row.rowType === 'Account') return `account level-${Math.min(row.level, 5)}`;
  if (row.rowType === 'SectionTotal') return 'section-total';
  return row.rowName === 'Net Income' ? 'computed net-income' : 'computed';
}

function cell(cents: number, isTotalColumn: boolean): SafeHtml {
  const classes = [cents < 0 ? 'neg' : '', isTotalColumn ? 'total-col' : ''].filter(Boolean).join(' ');
  return html`<td${classes ? html` class="${classes}"` : ''}>${formatAmount(cents)}</td>`;
}

function tableBody(report: FlatReport): SafeHtml[] {
  const width = report.columnNames.length + 1;
  const totalIndex = report.columnNames.indexOf('Total');
  const out: SafeHtml[] = [];
  let section = '';
  for (const row of report.rows) {
    if (row.section && row.section !== section) {
      section = row.section;
      out.push(html`<tr class="section-head"><th colspan="${width}" scope="rowgroup">${section}</th></tr>`);
    }
    const cells = row.cents.map((c, i) => cell(c, i === totalIndex));
    const head = html`<th scope="row">${row.rowName}</th>`;
    out.push(html`<tr class="${rowClass(row)}" data-row-type="${row.rowType}">${head}${cells}</tr>`);
  }
  return out;
}

export function renderHtml(report: FlatReport, meta: ReportMeta, links: HtmlReportLinks, assets: HtmlAssets): string {
  const columnHeads = report.columnNames.map((name) => html`<th scope="col">${name}</th>`);
  const range = `${longDate(meta.from)} – ${longDate(meta.to)}`;
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${meta.title} &middot; ${meta.companyName} &middot; ${range}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
</head>
<body>
<header>
  <h1>${meta.title}</h1>
  <p class="company">${meta.companyName}</p>
  <p class="range">${range} &middot; amounts in ${meta.currency}</p>
  <ul class="basis">${meta.basis.map((line) => html`<li>${line}</li>`)}</ul>
  <nav class="formats" aria-label="Other formats">Download:
    <a href="${links.csv}" download>CSV</a>
    <a href="${links.xlsx}" download>Excel (XLSX)</a>
    <a href="${links.json}">JSON</a>
  </nav>
</header>
<main>
  <section class="chart">
    <h2>Income, expenses and net income by month</h2>
    <div class="chart-box"><canvas id="pnl-chart" role="img"
      aria-label="Bar chart of income and expenses with a net income line, per month"></canvas></div>
    <p class="note">Income includes other income; expenses include cost of goods sold and other expenses.</p>
  </section>
  <section class="statement">
    <h2>Statement</h2>
    <table class="pnl">
      <thead><tr><th scope="col">Account</th>${columnHeads}</tr></thead>
      <tbody>
${tableBody(report)}
      </tbody>
    </table>
  </section>
</main>
<script type="application/json" id="chart-data">${jsonScriptData(chartData(report))}</script>
<script src="${assets.chartJs}"></script>
<script src="${assets.pageJs}"></script>
</body>
</html>
`;
  return page.text;
}
