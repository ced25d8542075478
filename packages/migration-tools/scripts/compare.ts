/**
 * npm run compare -- --old <url> --new <url> [sources…] [options]
 * Replays requests (the built-in battery, HAR files, IIS W3C or access logs, URL lists) against the old host and
 * this service and reports every difference a client would see; exit 0 when nothing differs beyond noise and
 * allowed rules, 1 otherwise, 2 on bad usage. See src/compare/ and the README's migration walk-through.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { renderHtmlReport, type HtmlReportLimits } from '../src/compare/html-report.ts';
import { BUILT_IN_NOISE } from '../src/compare/noise.ts';
import { DEFAULT_HEADERS } from '../src/compare/rules.ts';
import { runComparison } from '../src/compare/run.ts';
import { loadSource, REQUEST_SOURCES } from '../src/compare/sources/registry.ts';
import { formatSummary } from '../src/compare/summary.ts';
import { usageError } from '../../../src/tooling-exports.ts';
import { runCli } from '../../../src/tooling-exports.ts';
import { headerPairs, rulesFromOptions, UsageError } from './compare-options.ts';

/** An argument error (exit code 2): one sentence, and where the options are listed. */
const argumentError = (message: string) => usageError(`${message} (npm run compare -- --help lists the options)`);

const USAGE = `usage: npm run compare -- --old <url> --new <url> [sources…] [options]

sources (any mix; none = battery):
  battery                  every operation and wire rule of openapi/, wsdl/ and the README, generated from the contract
  FILE | KIND:FILE         ${REQUEST_SOURCES.map((s) => `${s.name} (${s.description})`).join(', ')}

options:
  --old2 <url>             a second old instance for noise (default: the old host a second time)
  --old-header 'K: V'      header sent to the old host (repeatable), e.g. an API key; also to --old2 unless
  --old2-header 'K: V'     headers of their own are given for it
  --new-header 'K: V'      header sent to the new host (repeatable)
  --header NAME            also compare this response header (repeatable); --headers A,B replaces the list
                           (default: ${DEFAULT_HEADERS.join(', ')})
  --ignore PATH            allow differences at a JSONPath ($.ReportModel.BuildTime, $..Url), 'header NAME' or 'status'
  --tolerance PATH=N[%]    allow numbers at PATH to differ by N (or N percent)
  --rules FILE             JSON rules file: { headers, extraHeaders, ignore, tolerances }
  --concurrency N          requests in flight (default 4)
  --rps N                  at most N requests per second to each host
  --timeout MS             time-out of every request (default 30000)
  --allow-non-get          replay every verb a recording holds (POST, PUT, DELETE, PATCH, OPTIONS, ...; default:
                           GET and HEAD only, the old host is production); --allow-post is the same switch
  --company ID             the company of the battery's report requests (default 1)
  --json FILE              write the JSON report
  --html FILE              write the self-contained HTML report (side-by-side diffs); it shows the first
  --html-per-group N       N differing requests of each endpoint and rule (default 2) and
  --html-max N             at most N in all (default 60); the others are counted (all in --json)
  --no-builtin-noise       do not treat this service's volatile fields (the report link's signature, BuildTime,
                           X-Request-Id) as noise
  --no-progress            no progress bar (it is off anyway when stderr is not a terminal)`;

function positive(value: string | undefined, option: string, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${option} must be a positive number, got '${value}'`);
  return n;
}

function baseUrl(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (!/^https?:\/\/[^/]/.test(value)) throw new UsageError(`${option} must be an http(s) URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

async function main(): Promise<number> {
  // biome-ignore lint/suspicious/noImplicitAnyLet: TypeScript types it from the parseArgs call below
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        old: { type: 'string' },
        old2: { type: 'string' },
        new: { type: 'string' },
        'old-header': { type: 'string', multiple: true },
        'old2-header': { type: 'string', multiple: true },
        'new-header': { type: 'string', multiple: true },
        header: { type: 'string', multiple: true },
        headers: { type: 'string' },
        ignore: { type: 'string', multiple: true },
        tolerance: { type: 'string', multiple: true },
        rules: { type: 'string' },
        concurrency: { type: 'string' },
        rps: { type: 'string' },
        timeout: { type: 'string' },
        'allow-non-get': { type: 'boolean' },
        'allow-post': { type: 'boolean' },
        company: { type: 'string' },
        json: { type: 'string' },
        html: { type: 'string' },
        'html-per-group': { type: 'string' },
        'html-max': { type: 'string' },
        'no-builtin-noise': { type: 'boolean' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw argumentError((error as Error).message);
  }
  const { values: o, positionals } = parsed;
  if (o.help) {
    console.log(USAGE);
    return 0;
  }
  // biome-ignore lint/suspicious/noImplicitAnyLet: TypeScript types it from its assignment below
  let options;
  let htmlLimits: HtmlReportLimits;
  try {
    const old = baseUrl(o.old, '--old');
    const neu = baseUrl(o.new, '--new');
    if (!old || !neu) throw new UsageError('--old and --new are required');
    const rules = rulesFromOptions(o);
    const oldHeaders = headerPairs(o['old-header'], '--old-header');
    const old2 = baseUrl(o.old2, '--old2');
    options = {
      old: { base: old, headers: oldHeaders },
      old2: old2
        ? { base: old2, headers: o['old2-header'] ? headerPairs(o['old2-header'], '--old2-header') : oldHeaders }
        : undefined,
      new: { base: neu, headers: headerPairs(o['new-header'], '--new-header') },
      rules,
      concurrency: positive(o.concurrency, '--concurrency', 4)!,
      rps: positive(o.rps, '--rps'),
      timeoutMs: positive(o.timeout, '--timeout', 30_000)!,
      allowNonGet: !!(o['allow-non-get'] || o['allow-post']),
      volatileFields: o['no-builtin-noise'] ? [] : BUILT_IN_NOISE,
    };
    htmlLimits = {
      perGroup: positive(o['html-per-group'], '--html-per-group'),
      maxExchanges: positive(o['html-max'], '--html-max'),
    };
  } catch (error) {
    if (error instanceof UsageError) throw argumentError(error.message);
    throw error;
  }

  const companyId = positive(o.company, '--company');
  const loaded = (positionals.length ? positionals : ['battery']).map((spec) => loadSource(spec, { companyId }));
  const issues = loaded.flatMap((s) => s.issues);
  for (const issue of issues) console.error(`${issue.file}:${issue.line}: skipped: ${issue.reason}`);
  const requests = loaded.flatMap((s) => s.requests);

  const bar =
    process.stderr.isTTY && !o['no-progress']
      ? new cliProgress.SingleBar(
          { stream: process.stderr, format: 'compare [{bar}] {value}/{total} requests | {eta_formatted} left' },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(requests.length, 0);
  const report = await runComparison(
    requests,
    { ...options, onProgress: (done) => bar?.update(done) },
    {
      sources: loaded.map((s) => ({
        spec: s.spec,
        source: s.source,
        requests: s.requests.length,
        issues: s.issues.length,
      })),
      issues,
    },
  );
  bar?.stop();

  console.log(formatSummary(report.summary));
  if (o.json) writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
  if (o.html) writeFileSync(o.html, renderHtmlReport(report, htmlLimits));
  if (o.json || o.html) console.log(`\nreports: ${[o.json, o.html].filter(Boolean).join(', ')}`);
  return report.summary.totals.different ? 1 : 0;
}

await runCli(main);
