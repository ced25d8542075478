/**
 * Issue 34's goal 2 for `npm run bench:report`: the production process (`node dist/src/start.js` as `npm start` runs
 * it, the access log at info to a drained pipe) over a benchmark ledger, its report req/s at N connections against its
 * own echo req/s (rounds in rotated order, medians), and its sequential report HTTP p50 against the BuildTime its
 * answers state. Reports only; the store's raw query rate is measured by bench-report.ts's own server process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedRequests, measuredLoad, timedGet } from './load.ts';
import { PRODUCTION_NODE_ARGS } from '../lib/production-start.ts';
import { REPO_ROOT } from '../lib/repo-root.ts';
import { processCpuMs } from './process-cpu.ts';
import { spawnServer } from './spawn-server.ts';
import { fmtInt, fmtMs, fmtRatio, median, percentile } from './stats.ts';

/** The production process's store: the DuckDB file's folder (its DATA_DIR) or a PostgreSQL URL. */
export type ProductionStore = { kind: 'duckdb'; dataDir: string } | { kind: 'postgres'; url: string };

export interface PipelineTarget {
  /** Row label, e.g. `duckdb 1,000,000`. */
  label: string;
  store: ProductionStore;
  /** An API key for the reports' company, already in the store. */
  apiKey: string;
  /**
   * Report paths (with query) by scenario name, each with its service time: the p50 of the GetFlat service called in
   * a process over the same store without HTTP (ms, unrounded), the anchor when the answers' BuildTime rounds to 0.
   */
  reports: { name: string; path: string; serviceMs: number }[];
}

export interface PipelineOptions {
  connections: number;
  duration: number;
  rounds: number;
  /** Sequential requests per report scenario for the HTTP p50 and the BuildTime p50 (after 20 warm-ups). */
  requests: number;
}

/** One load run of one path: autocannon's req/s average, its p50, and the server's CPU per request. */
interface Load {
  rps: number;
  p50: number;
  errors: number;
  cpuUsPerRequest: number;
}

export interface PipelineFigures {
  label: string;
  echo: Load;
  /** Per report scenario: load medians and sequential p50/BuildTime. */
  reports: {
    name: string;
    load: Load;
    httpP50: number;
    httpP95: number;
    buildP50: number;
    serviceMs: number;
    echoP50: number;
  }[];
}

const ECHO_PATH = '/v1/echo/hello';

async function startProduction(target: PipelineTarget) {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  const scratch = mkdtempSync(join(tmpdir(), 'bench-report-app-'));
  const env: Record<string, string> =
    target.store.kind === 'duckdb'
      ? { DATA_DIR: target.store.dataDir, LOG_LEVEL: 'info' }
      : { DATA_DIR: scratch, DATABASE_URL: target.store.url, LOG_LEVEL: 'info' };
  const server = await spawnServer([process.execPath, ...PRODUCTION_NODE_ARGS], { dataDir: scratch, env });
  server.child.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
  await server.ready;
  return server;
}

async function sequential(url: string, apiKey: string, count: number): Promise<{ ms: number[]; buildMs: number[] }> {
  const ms: number[] = [];
  const buildMs: number[] = [];
  for (let i = -20; i < count; i++) {
    const { ms: elapsed, text } = await timedGet(url, { 'X-ApiKey': apiKey });
    if (i < 0) continue;
    ms.push(elapsed);
    const build = (JSON.parse(text) as { ReportModel?: { BuildTime?: number } }).ReportModel?.BuildTime;
    if (build !== undefined) buildMs.push(build);
  }
  return { ms, buildMs };
}

async function load(url: string, apiKey: string, pid: number, options: PipelineOptions): Promise<Load> {
  const opts = { url, connections: options.connections, pipelining: 1, headers: { 'X-ApiKey': apiKey } };
  let cpu0 = 0;
  const r = await measuredLoad(opts, options.duration, { beforeMeasured: () => (cpu0 = processCpuMs(pid)) });
  const cpuMs = processCpuMs(pid) - cpu0;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    errors: failedRequests(r),
    cpuUsPerRequest: (cpuMs * 1000) / Math.max(1, r.requests.total),
  };
}

const medianLoad = (runs: Load[]): Load => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
  cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)),
});

/** Measures one store's production process: echo and the reports under load (rotated rounds), then sequentially. */
export async function measurePipeline(target: PipelineTarget, options: PipelineOptions): Promise<PipelineFigures> {
  const server = await startProduction(target);
  try {
    const pid = server.child.pid!;
    const paths = [ECHO_PATH, ...target.reports.map((r) => r.path)];
    for (const path of paths) await sequential(server.url + path, target.apiKey, 0); // warm: index, JIT
    const runs: Load[][] = paths.map(() => []);
    for (let round = 0; round < options.rounds; round++)
      for (let k = 0; k < paths.length; k++) {
        const i = (k + round) % paths.length;
        runs[i]!.push(await load(server.url + paths[i]!, target.apiKey, pid, options));
      }
    const echoSeq = await sequential(server.url + ECHO_PATH, target.apiKey, options.requests);
    const reports = [];
    for (const [i, report] of target.reports.entries()) {
      const seq = await sequential(server.url + report.path, target.apiKey, options.requests);
      reports.push({
        name: report.name,
        load: medianLoad(runs[i + 1]!),
        httpP50: median(seq.ms),
        httpP95: percentile(seq.ms, 95),
        buildP50: median(seq.buildMs),
        serviceMs: report.serviceMs,
        echoP50: median(echoSeq.ms),
      });
    }
    return { label: target.label, echo: medianLoad(runs[0]!), reports };
  } finally {
    await server.stop();
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

/** The goal's table and one verdict line per store and scenario. */
export function pipelineTable(figures: PipelineFigures[]): string[][] {
  const rows = [
    [
      'store',
      'scenario',
      'report req/s',
      'echo req/s',
      'report / echo',
      'report CPU µs/req',
      'echo CPU µs/req',
      'HTTP p50 ms',
      'BuildTime p50',
      'p50 / BuildTime',
      'service p50 ms',
      'p50 / service',
      'echo p50 ms',
    ],
  ];
  for (const f of figures)
    for (const r of f.reports)
      rows.push([
        f.label,
        r.name,
        fmtInt(r.load.rps),
        fmtInt(f.echo.rps),
        fmtRatio(r.load.rps / f.echo.rps),
        fmtInt(r.load.cpuUsPerRequest),
        fmtInt(f.echo.cpuUsPerRequest),
        fmtMs(r.httpP50),
        fmtMs(r.buildP50),
        r.buildP50 > 0 ? fmtRatio(r.httpP50 / r.buildP50) : '—',
        fmtMs(r.serviceMs),
        fmtRatio(r.httpP50 / r.serviceMs),
        fmtMs(r.echoP50),
      ]);
  return rows;
}

export function pipelineVerdicts(figures: PipelineFigures[]): string[] {
  return figures.flatMap((f) =>
    f.reports.map((r) => {
      const rate = r.load.rps / f.echo.rps;
      // BuildTime is whole milliseconds on the wire: below 0.5 ms the answers say 0; the service's own time decides.
      const [anchor, anchorMs] = r.buildP50 > 0 ? ['BuildTime', r.buildP50] : ['service time', r.serviceMs];
      const latency = r.httpP50 / anchorMs;
      const errors = r.load.errors + f.echo.errors;
      return (
        `  ${f.label}, ${r.name}: report / echo ${fmtRatio(rate)} (≥ 0.5×: ${verdict(rate >= 0.5)}); ` +
        `HTTP p50 / ${anchor} ${fmtRatio(latency)} (≤ 2×: ${verdict(latency <= 2)})` +
        `${r.buildP50 > 0 ? '' : ' (BuildTime p50 0 ms)'}${errors ? `; ${errors} errors under load` : ''}`
      );
    }),
  );
}
