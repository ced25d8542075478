/**
 * Flat P&L benchmark (`npm run bench:report -- [flags]`).
 *
 *   --entries N        journal entries in the random ledger (default 1,000,000; with --store postgres 1M and then
 *                      10M in one run); --big = 10,000,000 only
 *   --seed S           generator seed (default 7)
 *   --requests N       measured HTTP requests per scenario (default 50, after 5 warm-up requests)
 *   --store postgres   report from PostgreSQL (a kept cluster, see bench/cached-ledger.ts) instead of the DuckDB file
 *   --hledger          also time hledger on a journal of the full size (slow; hledger keeps everything in memory)
 *   --hledger-entries  size of the hledger anchor journal (default 100,000)
 *   --rebuild          import the cached ledgers again
 *   --rounds N         rounds of issue 34's goal 2 section (default 3; bench/report-pipeline.ts)
 *   --connections N    connections of the throughput runs (default 50); --duration S seconds each (default 5)
 *   --pg-entries N     entries of the PostgreSQL throughput ledger (default 200,000); SKIP_POSTGRES=1 leaves it out
 *   --pg-url URL       with --store postgres: a database already holding this ledger (same --entries and --seed), kept
 *   --import           also the import section (goal 3 of issue 23): `npm run import` of the ledger's CSV into a fresh
 *                      DuckDB and PostgreSQL (SKIP_POSTGRES=1: DuckDB only) against the engine's own read_csv / COPY +
 *                      balance check + sums, same run, with each process's peak RSS; --only import runs just that
 *                      (with --store, that store's only)
 *   --only standby     how soon an import on the primary shows through a hot standby (DATABASE_READ_URL) against
 *                      through the primary, same run (bench/standby.ts; --loads N imports, default 200)
 *   --companies N      only the many-companies section (issue 37, bench/many-companies.ts): N companies,
 *                      --total-entries in all (default 10,000,000; the largest company --largest, default 1,000,000),
 *                      --reads Zipf report reads (default 20,000) within --index-mb (default 256), DuckDB's
 *                      memory within --store-mb (STORE_MEMORY_MB; default its default), --rss-headroom-mb
 *                      (INDEX_RSS_HEADROOM_MB; default its default, 0 = none), the instance started with
 *                      npm start's node options and --node-options=<more> (--node-options=--max-semi-space-size=2);
 *                      a quick run:
 *                      --companies 2000 --total-entries 300000 --largest 100000
 *
 * With --store postgres, at 1M and at 10M entries, the same ledger is also served from the DuckDB file in the same run:
 * each scenario's p50 and the req/s at 50 connections are printed against DuckDB's and the scan's (goal 1: p50 ≤ 5 ms,
 * req/s ≥ 0.5× DuckDB's), with the instance's index memory and its time from opening the store to its first report
 * (goal 5: what a new instance costs), and how long an import committed through another instance takes to reach its
 * reports (goal 2, bench/propagation.ts).
 *
 * It builds the seeded random ledger (scripts/lib/random-ledger.ts) into a DuckDB file and a PostgreSQL cluster kept
 * under os.tmpdir() (bench/cached-ledger.ts); starts the real app in a child process over that store
 * (createApp + listen on port 0 + warmUp, responses not validated, as in production); and prints, in one run:
 *   - median and p95 latency of GET /v1/Reporting/ProfitAndLoss/Flat over HTTP, per scenario, with sequential requests;
 *   - report requests/s at 50 connections against the same store's raw query rate (sumPnlByAccountMonth called by 50
 *     concurrent callers inside the server process, no HTTP) as the anchor: DuckDB (this ledger) and PostgreSQL;
 *   - anchor (a): an in-process scan over typed arrays holding the same lines (the physical limit of the computation);
 *   - anchor (b): hledger incomestatement over a journal of the first 100k entries of the same ledger (same range);
 *   - issue 34's goal 2, per store of the run: the production process (`node dist/src/start.js`) over the same ledger,
 *     report req/s at 50 connections against its echo req/s, and the report's HTTP p50 against its stated BuildTime.
 * The scan's sums are cross-checked against the report's figures, so the anchor provably computes the same thing.
 */
import { failedRequests, measuredLoad, timedGet } from './bench/load.ts';
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './lib/repo-root.ts';
import { pino } from 'pino';
import { PRODUCTION_NODE_ARGS } from './lib/production-start.ts';
import { createApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { getFlat } from '../src/services/get-flat.ts';
import { linkSecretSource } from '../src/services/link-secret.ts';
import { listen, warmUp } from '../src/server.ts';
import type { AccountType, PnlQuery } from '../src/domain/ledger.ts';
import type { LedgerStore } from '../src/store/ledger/ledger-store.ts';
import { openStore } from '../src/store/open-store.ts';
import { hledgerQuery, hledgerVersion, runHledger, writeHledgerJournal } from './lib/hledger-journal.ts';
import { randomLedgerEntries, randomLedgerReference, type RandomLedgerOptions } from './lib/random-ledger.ts';
import { BENCH_DIR, cachedDuckDbLedger, cachedPostgresLedger } from './bench/cached-ledger.ts';
import { importSection } from './bench/import-bench.ts';
import {
  measurePipeline,
  pipelineTable,
  pipelineVerdicts,
  type PipelineFigures,
  type PipelineTarget,
} from './bench/report-pipeline.ts';
import { manyCompaniesSection } from './bench/many-companies.ts';
import { standbySection } from './bench/standby.ts';
import { firstMessage, stop } from './bench/spawn-server.ts';
import {
  ensurePropagationCompany,
  measurePropagation,
  PROPAGATION_COMPANY,
  PROPAGATION_RANGE,
} from './bench/propagation.ts';
import { fmtInt, fmtMs, fmtRatio, intArg, median, parseArgs, percentile, secs, table } from './bench/stats.ts';

const args = parseArgs(process.argv.slice(2));
const entries = args.has('big') ? 10_000_000 : intArg(args, 'entries', 1_000_000);
const seed = intArg(args, 'seed', 7);
const requests = intArg(args, 'requests', 50);
const storeKind = args.get('store') === 'postgres' ? 'postgres' : 'duckdb';
const hledgerFull = args.has('hledger');
/** The ledger sizes reported on: PostgreSQL at 1M and 10M unless told one size (goals 1 and 5 of issue 23). */
const SIZES =
  storeKind === 'postgres' && !args.has('entries') && !args.has('big') && !args.has('pg-url')
    ? [1_000_000, 10_000_000]
    : [entries];

const LEDGER: RandomLedgerOptions = {
  seed,
  entries,
  startDate: '2023-01-01',
  endDate: '2024-12-31',
  locations: 8,
  unpostedRate: 0.02,
};
const ledgerOf = (size: number): RandomLedgerOptions => ({ ...LEDGER, entries: size });
const ref = randomLedgerReference(LEDGER);
const channelOption = ref.trackingOptions.find((o) => o.categoryId === ref.trackingCategories[0]!.id)!;

interface Scenario {
  name: string;
  from: string;
  to: string;
  locations: number[];
  filters: string[];
}
const SCENARIOS: Scenario[] = [
  { name: 'year 2024, 12 months', from: '2024-01-01', to: '2024-12-31', locations: [], filters: [] },
  { name: 'year 2024, Locations=1', from: '2024-01-01', to: '2024-12-31', locations: [1], filters: [] },
  {
    name: 'year 2024, Filters=<channel>',
    from: '2024-01-01',
    to: '2024-12-31',
    locations: [],
    filters: [channelOption.id],
  },
  { name: '3 months (Apr–Jun 2024)', from: '2024-04-01', to: '2024-06-30', locations: [], filters: [] },
  { name: '3 months clipped (Apr 15–Jul 14)', from: '2024-04-15', to: '2024-07-14', locations: [], filters: [] },
];

const log = (msg: string) => console.log(msg);

// ---------------------------------------------------------------- store
/**
 * Where the server process finds the ledger: a DuckDB file (closed here first: one process per file) or a PostgreSQL
 * URL.
 */
type StoreSpec = { kind: 'duckdb'; path: string } | { kind: 'postgres'; url: string };

const openSpec = (spec: StoreSpec) =>
  spec.kind === 'postgres'
    ? openStore({ databaseUrl: spec.url, dataDir: '.' })
    : openStore({ dataDir: dirname(spec.path), duckdbPath: spec.path });

const rebuild = args.has('rebuild');

async function prepareDuckDb(size: number): Promise<{ spec: StoreSpec; note: string }> {
  const { path, note } = await cachedDuckDbLedger(ledgerOf(size), { rebuild });
  return { spec: { kind: 'duckdb', path }, note };
}

/** The PostgreSQL ledger: a database given by --pg-url, or the kept cluster (stop() stops its server). */
async function preparePostgres(size: number): Promise<{ spec: StoreSpec; note: string; stop: () => Promise<void> }> {
  const reuse = typeof args.get('pg-url') === 'string' ? String(args.get('pg-url')) : undefined;
  if (reuse)
    return {
      spec: { kind: 'postgres', url: reuse },
      note: `PostgreSQL reused: ${reuse.replace(/:[^:@/]*@/, ':…@')}`,
      stop: async () => undefined,
    };
  const { server, url, note } = await cachedPostgresLedger(ledgerOf(size), { rebuild });
  return { spec: { kind: 'postgres', url }, note, stop: () => server.destroy() };
}

// ---------------------------------------------------------------- anchor (a): typed-array scan
const SIGN: Partial<Record<AccountType, number>> = {
  Income: -1,
  OtherIncome: -1,
  COGS: 1,
  Expense: 1,
  OtherExpense: 1,
};
const DAY = 86_400_000;
const epochDay = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY;

interface Columns {
  n: number;
  account: Int32Array; // account index
  day: Int32Array; // epoch day
  location: Int32Array;
  option: Int32Array[]; // per tracking category: option index or -1
  cents: Float64Array;
}

/**
 * Posted P&L lines of the same ledger, columnar (unposted entries and balance-sheet lines are dropped at ingest, as the
 * pre-aggregates do).
 */
function buildColumns(ledger: RandomLedgerOptions): { cols: Columns; accountIds: number[]; optionIds: string[][] } {
  const accountIds = ref.accounts.filter((a) => SIGN[a.type] !== undefined).map((a) => a.id);
  const accountIndex = new Map(accountIds.map((id, i) => [id, i]));
  const optionIds = ref.trackingCategories.map((c) =>
    ref.trackingOptions.filter((o) => o.categoryId === c.id).map((o) => o.id),
  );
  const optionIndex = new Map(optionIds.flatMap((list, c) => list.map((id, i) => [id, [c, i] as const])));
  const cap = ledger.entries * 3;
  const cols: Columns = {
    n: 0,
    account: new Int32Array(cap),
    day: new Int32Array(cap),
    location: new Int32Array(cap),
    option: optionIds.map(() => new Int32Array(cap)),
    cents: new Float64Array(cap),
  };
  const dayCache = new Map<string, number>();
  for (const e of randomLedgerEntries(ledger)) {
    if (e.isPosted === false) continue;
    let d = dayCache.get(e.date);
    if (d === undefined) dayCache.set(e.date, (d = epochDay(e.date)));
    for (const l of e.lines) {
      const a = accountIndex.get(l.accountId);
      if (a === undefined) continue;
      const i = cols.n++;
      cols.account[i] = a;
      cols.day[i] = d;
      cols.location[i] = l.locationId ?? e.locationId;
      cols.cents[i] = l.cents;
      for (const o of cols.option) o[i] = -1;
      for (const id of l.trackingOptionIds ?? []) {
        const [c, k] = optionIndex.get(id)!;
        cols.option[c]![i] = k;
      }
    }
  }
  return { cols, accountIds, optionIds };
}

interface ScanResult {
  months: string[];
  sums: Float64Array;
}

function monthsOf(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4)),
    m = Number(from.slice(5, 7));
  for (;;) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    if (key > to.slice(0, 7)) return out;
    out.push(key);
    if (++m === 13) {
      m = 1;
      y++;
    }
  }
}

/** Sums cents per account × month over the range and filters: one pass over the typed arrays. */
function scan(c: Columns, s: Scenario, locationCount: number, optionIds: string[][]): ScanResult {
  const months = monthsOf(s.from, s.to);
  const from = epochDay(s.from),
    to = epochDay(s.to);
  const colOfDay = new Int32Array(to - from + 1);
  for (let d = from; d <= to; d++) colOfDay[d - from] = months.indexOf(new Date(d * DAY).toISOString().slice(0, 7));
  const locMask = s.locations.length > 0 ? new Uint8Array(locationCount + 1) : null;
  for (const l of s.locations) locMask![l] = 1;
  // Per category with requested options: allowed option indexes (OR within, AND across).
  const optMasks: [Int32Array, Uint8Array][] = [];
  optionIds.forEach((ids, cat) => {
    const wanted = ids.map((id) => s.filters.includes(id));
    if (wanted.some(Boolean)) optMasks.push([c.option[cat]!, Uint8Array.from(wanted.map(Number))]);
  });
  const width = months.length;
  const sums = new Float64Array(64 * width);
  const { n, account, day, location, cents } = c;
  const add = (i: number, d: number) => {
    sums[account[i]! * width + colOfDay[d - from]!]! += cents[i]!;
  };
  if (locMask === null && optMasks.length === 0) {
    for (let i = 0; i < n; i++) {
      const d = day[i]!;
      if (d >= from && d <= to) add(i, d);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const d = day[i]!;
      if (d < from || d > to) continue;
      if (locMask !== null && locMask[location[i]!] === 0) continue;
      let ok = true;
      for (let k = 0; k < optMasks.length; k++) {
        const [col, mask] = optMasks[k]!;
        const o = col[i]!;
        if (o < 0 || mask[o] === 0) {
          ok = false;
          break;
        }
      }
      if (ok) add(i, d);
    }
  }
  return { months, sums };
}

// ---------------------------------------------------------------- HTTP
function reportUrl(base: string, s: Scenario): string {
  const q = new URLSearchParams({
    CompanyId: String(ref.companyId),
    UseCustomDateRange: 'true',
    StartDate: s.from,
    EndDate: s.to,
    IncludeComputedColumns: 'true',
  });
  if (s.locations.length > 0) q.set('Locations', s.locations.join(','));
  if (s.filters.length > 0) q.set('Filters', s.filters.join(','));
  return `${base}/v1/Reporting/ProfitAndLoss/Flat?${q}`;
}

interface ReportJson {
  ReportModel: {
    BuildTime: number;
    ColumnNames: string[];
    Rows: { RowType: string; AccountNumber?: string; Values: number[] }[];
  };
}

/** The API key the benchmark's requests carry (made for the benchmark's company when the app starts). */
let apiKey = '';

const isSocketClosed = (error: unknown) =>
  error instanceof TypeError && (error.cause as { code?: string } | undefined)?.code === 'UND_ERR_SOCKET';

async function measureHttp(url: string): Promise<{ ms: number[]; buildMs: number[]; body: ReportJson; bytes: number }> {
  const once = () => timedGet(url, { 'X-ApiKey': apiKey });
  // The first request after the scan anchor ran may meet a keep-alive connection the server has just closed (it
  // closes idle ones after 5 s, and the scan of 10M lines takes longer than that): those warm-ups are tried again.
  for (let i = 0; i < 5; i++)
    await once().catch((error: unknown) => (isSocketClosed(error) ? once() : Promise.reject(error)));
  const ms: number[] = [],
    buildMs: number[] = [];
  let last = '';
  for (let i = 0; i < requests; i++) {
    const r = await once();
    ms.push(r.ms);
    buildMs.push((JSON.parse(r.text) as ReportJson).ReportModel.BuildTime);
    last = r.text;
  }
  return { ms, buildMs, body: JSON.parse(last) as ReportJson, bytes: Buffer.byteLength(last) };
}

/** Mismatching cells between the report's Account rows and the scan (natural sign applied to the scan). */
function crossCheck(body: ReportJson, r: ScanResult, accountIds: number[]): number {
  const typeOf = new Map(ref.accounts.map((a) => [a.number, a.type]));
  const indexOf = new Map(accountIds.map((id, i) => [String(id), i]));
  const width = r.months.length;
  let bad = 0;
  const seen = new Set<number>();
  for (const row of body.ReportModel.Rows) {
    if (row.RowType !== 'Account') continue;
    const i = indexOf.get(row.AccountNumber ?? '');
    if (i === undefined) {
      bad++;
      continue;
    }
    seen.add(i);
    const sign = SIGN[typeOf.get(row.AccountNumber ?? '')!]!;
    for (let m = 0; m < width; m++) if (Math.round(row.Values[m]! * 100) !== sign * r.sums[i * width + m]!) bad++;
  }
  accountIds.forEach((_, i) => {
    if (!seen.has(i)) for (let m = 0; m < width; m++) if (r.sums[i * width + m] !== 0) bad++;
  });
  return bad;
}

// ---------------------------------------------------------------- anchor (b): hledger
async function timeHledger(journal: string, s: Scenario, runs: number): Promise<number> {
  const end = new Date((epochDay(s.to) + 1) * DAY).toISOString().slice(0, 10);
  const terms = hledgerQuery(ref, { locations: s.locations, filters: s.filters });
  const whole = s.from.endsWith('-01') && monthsOf(end, end)[0] !== s.to.slice(0, 7);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    // -M widens -b/-e to whole months in hledger 1.25; clipped ranges are timed without the interval.
    await runHledger([
      'incomestatement',
      '-f',
      journal,
      '--flat',
      '-O',
      'csv',
      ...(whole ? ['-M'] : []),
      '-b',
      s.from,
      '-e',
      end,
      ...terms,
    ]);
    times.push(performance.now() - t0);
  }
  return median(times);
}

function ensureJournal(size: number): string {
  const dir = BENCH_DIR;
  mkdirSync(dir, { recursive: true });
  const key = createHash('sha1')
    .update(readFileSync(join(REPO_ROOT, 'scripts/lib/random-ledger.ts')))
    .update(readFileSync(join(REPO_ROOT, 'scripts/lib/hledger-journal.ts')))
    .digest('hex')
    .slice(0, 10);
  const file = join(dir, `ledger-s${seed}-n${size}-${key}.journal`);
  if (!existsSync(`${file}.ok`)) {
    const t0 = performance.now();
    writeHledgerJournal(file, ref, randomLedgerEntries({ ...LEDGER, entries: size }));
    writeFileSync(`${file}.ok`, '');
    log(
      `  wrote ${fmtInt(size)}-entry journal in ${secs(performance.now() - t0)} ` +
        `(${(statSync(file).size / 1e6).toFixed(0)} MB)`,
    );
  }
  return file;
}

// ---------------------------------------------------------------- the server process
const connections = intArg(args, 'connections', 50);
const duration = intArg(args, 'duration', 5);
const pgEntries = intArg(args, 'pg-entries', 200_000);
const pipelineOptions = { connections, duration, rounds: intArg(args, 'rounds', 3), requests: 200 };
/** The scenarios of the throughput runs: the whole year and the clipped quarter. */
const LOAD_SCENARIOS = [SCENARIOS[0]!, SCENARIOS[4]!];

const pnlQuery = (s: Scenario): PnlQuery => ({
  companyId: ref.companyId,
  from: s.from,
  to: s.to,
  locationIds: s.locations,
  optionGroups: s.filters.length ? [s.filters] : [],
});

/**
 * sumPnlByAccountMonth calls per second with `concurrency` callers, each issuing its next call when the last one
 * answers.
 */
async function rawQueryRate(store: LedgerStore, q: PnlQuery, concurrency: number, seconds: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await store.sumPnlByAccountMonth(q);
        n++;
        if (n % 64 === 0) await new Promise(setImmediate); // let timers and I/O of the store run
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/**
 * The p50 of `count` sequential GetFlat calls (after 20 warm-ups) in this process: what the answer's BuildTime measures
 * (catalog, options, sums, report, link), unrounded.
 */
async function serviceTime(store: LedgerStore, s: Scenario, count: number): Promise<number> {
  // The request reportUrl() sends, as the binder gives it to the service.
  const dto = {
    CompanyId: ref.companyId,
    UseCustomDateRange: true,
    StartDate: s.from,
    EndDate: s.to,
    IncludeComputedColumns: true,
    Locations: s.locations,
    Filters: s.filters,
  };
  const context = {
    store,
    now: () => new Date(),
    baseUrl: 'http://127.0.0.1',
    linkSecret: linkSecretSource(store),
    caller: { companyName: '', companyIds: [ref.companyId] },
  };
  const times: number[] = [];
  for (let i = -20; i < count; i++) {
    const t0 = performance.now();
    await getFlat(dto, context);
    if (i >= 0) times.push(performance.now() - t0);
  }
  return median(times);
}

interface ServerReady {
  url: string;
  key: string;
  openMs: number;
  firstQueryMs: number;
  raw: number[];
  /** Per load scenario: the GetFlat service's own time (ms, unrounded) p50, called in this process without HTTP. */
  serviceMs: number[];
  rssMiB: number;
  indexMiB: number;
  /** Since the process started (Node, modules through tsx, store, first report). */
  firstReportAtMs: number;
}

/** Child: opens the store, times its first query and its raw query rate, then serves the app until told to stop. */
async function serveStore(spec: StoreSpec): Promise<void> {
  const t0 = performance.now();
  const store = await openSpec(spec);
  const openMs = performance.now() - t0;
  const t1 = performance.now();
  await store.sumPnlByAccountMonth(pnlQuery(SCENARIOS[0]!));
  const firstQueryMs = performance.now() - t1;
  const firstReportAtMs = performance.now(); // performance's origin is the process start
  const indexMiB = ((store as Partial<{ indexBytes(): number }>).indexBytes?.() ?? 0) / 2 ** 20;
  const raw: number[] = [];
  for (const s of LOAD_SCENARIOS) {
    await rawQueryRate(store, pnlQuery(s), connections, 1); // warm-up
    raw.push(await rawQueryRate(store, pnlQuery(s), connections, duration));
  }
  const serviceMs: number[] = [];
  for (const s of LOAD_SCENARIOS) serviceMs.push(await serviceTime(store, s, 200));
  const app = await createApp({
    config: { companyName: 'Bench', debug: false, bodyLimitBytes: 1_048_576, validateResponses: false },
    store,
    logger: pino({ level: 'silent' }),
  });
  const { server, url } = await listen(app, 0, '127.0.0.1');
  await warmUp(url);
  const companyIds = spec.kind === 'postgres' ? [ref.companyId, PROPAGATION_COMPANY] : [ref.companyId];
  const key = (await createApiKey(store, { name: 'bench', companyIds })).key;
  process.once('message', () => {
    server.closeAllConnections();
    server.close(() => void store.close().then(() => process.exit(0)));
  });
  process.send!({
    url,
    key,
    openMs,
    firstQueryMs,
    firstReportAtMs,
    raw,
    serviceMs,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
    indexMiB,
  } satisfies ServerReady);
}

/** How long the report server may take to open its store and measure its raw rate before it is killed. */
const SERVER_READY_MS = 30 * 60_000;

async function startServer(spec: StoreSpec): Promise<{ ready: ServerReady; stop: () => Promise<void> }> {
  const child = fork(
    fileURLToPath(import.meta.url),
    [...process.argv.slice(2), '--serve-store', JSON.stringify(spec)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const ready = await firstMessage<ServerReady>(child, 'the report server', SERVER_READY_MS);
  return { ready, stop: () => stop(child, () => child.send('stop')) };
}

interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function throughput(url: string, s: Scenario): Promise<Throughput> {
  const opts = { url: reportUrl(url, s), connections, pipelining: 1, headers: { 'X-ApiKey': apiKey } };
  const r = await measuredLoad(opts, duration);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: failedRequests(r) };
}

/** Report req/s at `connections` against the raw query rate of the same store, per load scenario. */
async function throughputRows(label: string, url: string, ready: ServerReady): Promise<string[][]> {
  const rows: string[][] = [];
  for (const [i, s] of LOAD_SCENARIOS.entries()) {
    const t = await throughput(url, s);
    rows.push([
      label,
      s.name,
      fmtInt(t.rps),
      fmtMs(t.p50),
      fmtMs(t.p99),
      String(t.errors),
      fmtInt(ready.raw[i]!),
      fmtRatio(t.rps / ready.raw[i]!),
    ]);
  }
  return rows;
}

// ---------------------------------------------------------------- issue 34, goal 2: the production process
/** The production process over a store of this run, with the key the benchmark's server made in it. */
function pipelineTarget(spec: StoreSpec, size: number, ready: ServerReady): PipelineTarget {
  return {
    label: `${spec.kind} ${fmtInt(size)}`,
    store: spec.kind === 'duckdb' ? { kind: 'duckdb', dataDir: dirname(spec.path) } : spec,
    apiKey,
    reports: LOAD_SCENARIOS.map((s, i) => ({ name: s.name, path: reportUrl('', s), serviceMs: ready.serviceMs[i]! })),
  };
}

/** Goal 2's table, its verdicts, and the production process's report req/s against the store's raw query rate. */
function pipelineSummary(figures: PipelineFigures[], loadRows: string[][]): void {
  if (figures.length === 0) return;
  log('');
  log(
    `Issue 34 goal 2, the production process (node ${PRODUCTION_NODE_ARGS.join(' ')}, access log at info to a ` +
      'drained pipe):',
  );
  log(
    `report and echo (GET /v1/echo/hello) at ${connections} connections against the same process, ` +
      `${pipelineOptions.rounds} rounds of ${duration} s in rotated order (medians);`,
  );
  log(
    `HTTP p50 of ${pipelineOptions.requests} sequential requests against the BuildTime p50 their answers state ` +
      '(integer ms), and the echo p50 alike;',
  );
  log(
    'service p50: the GetFlat service (what BuildTime measures) called 200 times in the raw-rate process, unrounded.',
  );
  log(table(pipelineTable(figures)));
  for (const line of pipelineVerdicts(figures)) log(line);
  for (const f of figures)
    for (const r of f.reports) {
      const raw = loadRows.find((row) => row[0] === f.label && row[1] === r.name)?.[6];
      if (raw)
        log(
          `  ${f.label}, ${r.name}: report ${fmtInt(r.load.rps)} req/s / raw query rate ${raw}/s = ` +
            `${fmtRatio(r.load.rps / Number(raw.replace(/\D/g, '')))}`,
        );
    }
}

// ---------------------------------------------------------------- main
/** The import section (scripts/bench/import-bench.ts). */
async function importReport(): Promise<void> {
  const stores: ('duckdb' | 'postgres')[] = args.has('store')
    ? [storeKind]
    : process.env.SKIP_POSTGRES === '1'
      ? ['duckdb']
      : ['duckdb', 'postgres'];
  log(`Import benchmark: ${fmtInt(entries)} entries, seed ${seed}, stores ${stores.join(', ')}`);
  for (const line of await importSection(LEDGER, stores)) log(line);
}

/** What one size's section found about a PostgreSQL instance, for the summary of goals 2 and 5. */
interface InstanceFigures {
  size: number;
  ready: ServerReady;
  duckdbIndexMiB: number;
  propagationMs: number[];
}

/** The report figures of the propagation company from an instance, without its BuildTime. */
async function propagationFigures(base: string): Promise<string> {
  const q = new URLSearchParams({
    CompanyId: String(PROPAGATION_COMPANY),
    UseCustomDateRange: 'true',
    StartDate: PROPAGATION_RANGE.from,
    EndDate: PROPAGATION_RANGE.to,
  });
  const res = await fetch(`${base}/v1/Reporting/ProfitAndLoss/Flat?${q}`, { headers: { 'X-ApiKey': apiKey } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status} for the propagation company: ${text.slice(0, 300)}`);
  return JSON.stringify((JSON.parse(text) as ReportJson).ReportModel.Rows);
}

/**
 * One ledger size: the main store's scenarios against the scan (and hledger), then throughput; with PostgreSQL, DuckDB
 * too.
 */
async function reportSection(size: number): Promise<InstanceFigures | undefined> {
  const ledger = ledgerOf(size);
  const hledgerEntries = Math.min(size, intArg(args, 'hledger-entries', 100_000));
  log(
    `Flat P&L benchmark: ${fmtInt(size)} entries, seed ${seed}, ${storeKind} store, ${requests} requests per scenario`,
  );
  log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM ` +
      `(${(freemem() / 2 ** 30).toFixed(1)} free), Node ${process.version}`,
  );
  const tOpen = performance.now();
  const main =
    storeKind === 'duckdb'
      ? { ...(await prepareDuckDb(size)), stop: async () => undefined }
      : await preparePostgres(size);
  log(main.note);
  log(`Ledger ready in ${secs(performance.now() - tOpen)}`);

  const tCols = performance.now();
  const { cols, accountIds, optionIds } = buildColumns(ledger);
  log(
    `Typed arrays for the scan anchor: ${fmtInt(cols.n)} posted P&L lines, built in ${secs(performance.now() - tCols)}`,
  );

  const rows: string[][] = [
    [
      'scenario',
      'cols',
      'HTTP p50 ms',
      'HTTP p95 ms',
      'BuildTime p50',
      'scan p50 ms',
      'p50 / scan',
      'hledger 100k ms',
      'check',
    ],
  ];
  const version = await hledgerVersion();
  const journal = version ? ensureJournal(hledgerEntries) : undefined;
  const results: { s: Scenario; p50: number; scanMs: number; hledgerMs?: number }[] = [];
  const loadRows: string[][] = [
    ['store', 'scenario', 'report req/s', 'p50 ms', 'p99 ms', 'errors', 'raw query/s', 'report / raw'],
  ];
  let propagationMs: number[] = [];
  const pipeline: PipelineFigures[] = [];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    if (main.spec.kind === 'postgres') await ensurePropagationCompany(main.spec.url);
    server = await startServer(main.spec);
    const { url } = server.ready;
    apiKey = server.ready.key;
    log(
      `Report server (child process): store opened in ${fmtMs(server.ready.openMs)} ms, first report query ` +
        `(builds the in-memory index) ` +
        `${fmtMs(server.ready.firstQueryMs)} ms, index ${server.ready.indexMiB.toFixed(1)} MiB, ` +
        `RSS ${server.ready.rssMiB.toFixed(0)} MiB`,
    );
    for (const s of SCENARIOS) {
      const http = await measureHttp(reportUrl(url, s));
      let result = scan(cols, s, ref.locations.length, optionIds);
      const scanTimes: number[] = [];
      for (let i = 0; i < 15; i++) {
        const t0 = performance.now();
        result = scan(cols, s, ref.locations.length, optionIds);
        scanTimes.push(performance.now() - t0);
      }
      const bad = crossCheck(http.body, result, accountIds);
      const p50 = median(http.ms),
        scanMs = median(scanTimes);
      const hledgerMs =
        journal && (s === SCENARIOS[0] || s === SCENARIOS[3]) ? await timeHledger(journal, s, 1) : undefined;
      results.push({ s, p50, scanMs, hledgerMs });
      rows.push([
        s.name,
        String(http.body.ReportModel.ColumnNames.length),
        fmtMs(p50),
        fmtMs(percentile(http.ms, 95)),
        fmtMs(median(http.buildMs)),
        fmtMs(scanMs),
        fmtRatio(p50 / scanMs),
        hledgerMs === undefined ? '—' : fmtMs(hledgerMs),
        bad === 0 ? 'same sums' : `${bad} cells differ`,
      ]);
      process.stdout.write(`  measured: ${s.name} (${fmtInt(http.bytes)} bytes per response)\n`);
    }
    loadRows.push(...(await throughputRows(`${main.spec.kind} ${fmtInt(size)}`, url, server.ready)));
    if (main.spec.kind === 'postgres')
      propagationMs = await measurePropagation(main.spec.url, () => propagationFigures(url));
    await server.stop(); // the production process takes the store (a DuckDB file is one process's)
    pipeline.push(await measurePipeline(pipelineTarget(main.spec, size, server.ready), pipelineOptions));
  } finally {
    await server?.stop();
    await main.stop();
  }
  const duckdbRows: string[][] = [
    ['scenario', 'postgres p50 ms', 'duckdb p50 ms', 'scan p50 ms', 'postgres / duckdb', 'postgres / scan'],
  ];
  let duckdbReady: ServerReady | undefined;
  if (storeKind === 'postgres') {
    // The anchor of goal 1: the same ledger from the embedded store, in the same run.
    const duck = await prepareDuckDb(size);
    log(duck.note);
    const duckServer = await startServer(duck.spec);
    duckdbReady = duckServer.ready;
    apiKey = duckServer.ready.key;
    try {
      for (const r of results) {
        const duckP50 = median((await measureHttp(reportUrl(duckServer.ready.url, r.s))).ms);
        duckdbRows.push([
          r.s.name,
          fmtMs(r.p50),
          fmtMs(duckP50),
          fmtMs(r.scanMs),
          fmtRatio(r.p50 / duckP50),
          fmtRatio(r.p50 / r.scanMs),
        ]);
      }
      loadRows.push(...(await throughputRows(`duckdb ${fmtInt(size)}`, duckServer.ready.url, duckServer.ready)));
    } finally {
      await duckServer.stop();
    }
    pipeline.push(await measurePipeline(pipelineTarget(duck.spec, size, duckdbReady), pipelineOptions));
  }
  if (storeKind === 'duckdb' && process.env.SKIP_POSTGRES !== '1') {
    const pg = await cachedPostgresLedger(ledgerOf(pgEntries), { rebuild });
    log(pg.note);
    const pgServer = await startServer({ kind: 'postgres', url: pg.url });
    apiKey = pgServer.ready.key;
    try {
      loadRows.push(...(await throughputRows(`postgres ${fmtInt(pgEntries)}`, pgServer.ready.url, pgServer.ready)));
    } finally {
      await pgServer.stop();
      await pg.server.destroy();
    }
  }

  log('');
  log(table(rows));
  log('');
  log(
    'HTTP p50/p95: wall time of sequential fetch() requests (request → full body) over loopback, after 5 ' +
      'warm-up requests.',
  );
  log("BuildTime: the service's own ReportModel.BuildTime (catalog read + store query + report build), integer ms.");
  log('scan: one pass over Int32/Float64 typed arrays of the same posted P&L lines, summing per account × month');
  log('      with the same range/location/tracking filters (the physical limit); "same sums" = it matches the report.');
  if (!version) log('hledger: not found (set HLEDGER or install hledger) — anchor (b) skipped.');
  else {
    log(
      `hledger: ${version}; incomestatement --flat -O csv over a ${fmtInt(hledgerEntries)}-entry journal (the ` +
        `first entries of the`,
    );
    log('         same ledger), parse included (hledger has no persistent index); one run per timed scenario.');
    const h = results.find((r) => r.hledgerMs !== undefined);
    if (h && hledgerEntries < size) {
      log(
        `         Report at ${fmtInt(size)} entries vs hledger ` +
          `at ${fmtInt(hledgerEntries)}: ${fmtRatio(h.hledgerMs! / h.p50)} faster ` +
          `(${h.s.name}); hledger scales ~linearly with the journal.`,
      );
    }
    if (hledgerFull) {
      log(`hledger at the full size (${fmtInt(size)} entries):`);
      const big = ensureJournal(size);
      const ms = await timeHledger(big, SCENARIOS[0]!, 1);
      log(`         ${SCENARIOS[0]!.name}: ${fmtMs(ms)} ms = ${fmtRatio(ms / results[0]!.p50)} the report's HTTP p50`);
    }
  }
  log('');
  log(
    `Throughput: ${connections} keep-alive connections, ${duration} s per scenario (+1 s warm-up), autocannon ` +
      `against the server process.`,
  );
  log(table(loadRows));
  log("raw query/s: the same store's sumPnlByAccountMonth for the same query, called by the same number of concurrent");
  log(
    '             callers inside the server process (no HTTP, no report build), measured before it serves: the anchor.',
  );
  pipelineSummary(pipeline, loadRows);
  if (!duckdbReady || !server) return undefined;
  log('');
  log(
    `PostgreSQL against DuckDB, same ledger (${fmtInt(size)} entries), same run (goal: p50 ≤ 5 ms; req/s ≥ 0.5× ` +
      `DuckDB's):`,
  );
  log(table(duckdbRows));
  const pgRps = loadRows.filter((r) => r[0]!.startsWith('postgres')).map((r) => Number(r[2]!.replace(/\D/g, '')));
  const duckRps = loadRows.filter((r) => r[0]!.startsWith('duckdb')).map((r) => Number(r[2]!.replace(/\D/g, '')));
  LOAD_SCENARIOS.forEach((sc, i) =>
    log(
      `  req/s at ${connections} connections, ${sc.name}: postgres ${fmtInt(pgRps[i]!)} / ` +
        `duckdb ${fmtInt(duckRps[i]!)} = ${fmtRatio(pgRps[i]! / duckRps[i]!)}`,
    ),
  );
  log('');
  return { size, ready: server.ready, duckdbIndexMiB: duckdbReady.indexMiB, propagationMs };
}

/** Goals 2 and 5 over every size: a PostgreSQL instance's index, its start, and how soon it shows another's import. */
function instanceSummary(figures: InstanceFigures[]): void {
  log(
    'PostgreSQL instance, per ledger size (goal 5: index memory, start to first report; goal 2: an import ' +
      'through another',
  );
  log("instance in this one's report, ≤ 1 s):");
  log(
    table([
      [
        'entries',
        'index MiB',
        'duckdb index MiB',
        'RSS MiB',
        'store open ms',
        'first report ms',
        'process start → first report',
        'import → visible p50 ms (max)',
      ],
      ...figures.map(({ size, ready, duckdbIndexMiB, propagationMs }) => [
        fmtInt(size),
        ready.indexMiB.toFixed(1),
        duckdbIndexMiB.toFixed(1),
        ready.rssMiB.toFixed(0),
        fmtMs(ready.openMs),
        fmtMs(ready.firstQueryMs),
        `${fmtMs(ready.firstReportAtMs)} ms`,
        `${fmtMs(median(propagationMs))} (${fmtMs(Math.max(...propagationMs))})`,
      ]),
    ]),
  );
  log(
    "first report: the store's first report query of the company, which reads its balance_daily in one snapshot " +
      'into the',
  );
  log(
    '              index (bulk: one packed bytea per month, src/store/postgres/packed-balances.ts); process ' +
      'start: since the child',
  );
  log('              process began (Node, modules through tsx, store, first report). RSS after the raw-rate runs.');
  log(
    `import → visible: ${figures[0]?.propagationMs.length ?? 0} one-entry imports through another instance ` +
      `(this benchmark's process),`,
  );
  log(
    '              from the moment its COMMIT is notified to the first report over HTTP of the serving instance ' +
      'that shows it.',
  );
}

async function main(): Promise<void> {
  if (args.get('only') === 'import') return importReport();
  if (args.get('only') === 'standby') return standbySection(log, intArg(args, 'loads', 200));
  if (args.has('companies'))
    return manyCompaniesSection(
      {
        companies: intArg(args, 'companies'),
        totalEntries: intArg(args, 'total-entries', 10_000_000),
        largest: intArg(args, 'largest', 1_000_000),
        indexMb: intArg(args, 'index-mb', 256),
        storeMb: args.has('store-mb') ? intArg(args, 'store-mb') : undefined,
        rssHeadroomMb: !args.has('rss-headroom-mb')
          ? undefined
          : args.get('rss-headroom-mb') === '0'
            ? 0 // no RSS limit
            : intArg(args, 'rss-headroom-mb'),
        nodeOptions: typeof args.get('node-options') === 'string' ? String(args.get('node-options')) : undefined,
        requests: intArg(args, 'reads', 20_000),
        seed,
        store: storeKind,
      },
      log,
    );
  const figures: InstanceFigures[] = [];
  for (const size of SIZES) {
    const found = await reportSection(size);
    if (found) figures.push(found);
  }
  if (figures.length > 0) instanceSummary(figures);
  if (args.has('import')) {
    log('');
    await importReport();
  }
}

const serveAt = process.argv.indexOf('--serve-store');
if (serveAt >= 0) await serveStore(JSON.parse(process.argv[serveAt + 1]!) as StoreSpec);
else await main();
