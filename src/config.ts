/**
 * Configuration as a schema: each key has its environment variable, default, parser and doc, here only. Read once
 * at start-up (`loadConfig`); the app takes its defaults from `configDefaults`; the README's configuration table
 * lists exactly these keys (test/unit/config/config-schema.test.ts checks it).
 */
import path from 'node:path';
import { AUTH_MODES, type AuthMode } from './auth/auth-mode.ts';
import { parseBasePath, parsePublicBaseUrl, parseTrustProxy, type TrustProxy } from './config-parsers.ts';
import { parseSettingBoolean } from './scalars/booleans.ts';
import { LOG_FORMATS, type LogFormat } from './ops/log-format.ts';

interface Setting<T> {
  env: string;
  /** Used when the variable is unset or empty; undefined = the key stays unset. */
  default: T | undefined;
  parse: (raw: string, env: string) => T;
  doc: string;
}

function nonNegativeInt(raw: string, env: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${env} must be a non-negative integer, got '${raw}'`);
  return value;
}

function positiveInt(raw: string, env: string): number {
  const value = nonNegativeInt(raw, env);
  if (value < 1) throw new Error(`${env} must be a positive integer, got '${raw}'`);
  return value;
}

/** Most monthly columns a report may have: XLSX allows 16,384 columns, the report writes 7 besides the months. */
export const MAX_REPORT_COLUMNS_CEILING = 16_384 - 8;

function reportColumns(raw: string, env: string): number {
  const value = nonNegativeInt(raw, env);
  if (value < 1 || value > MAX_REPORT_COLUMNS_CEILING)
    throw new Error(`${env} must be 1-${MAX_REPORT_COLUMNS_CEILING} (XLSX's column limit), got '${raw}'`);
  return value;
}

function flag(raw: string, env: string): boolean {
  const value = parseSettingBoolean(raw);
  if (value === undefined) throw new Error(`${env} must be a boolean (1/0, true/false), got '${raw}'`);
  return value;
}

const text = (raw: string): string => raw;

/** A parser of a setting that is one of `values`, case-insensitive. */
function oneOf<T extends string>(values: readonly T[]): (raw: string, env: string) => T {
  return (raw, env) => {
    const value = raw.trim().toLowerCase();
    if (!(values as readonly string[]).includes(value))
      throw new Error(`${env} must be one of ${values.join(', ')}, got '${raw}'`);
    return value as T;
  };
}

const authMode = oneOf<AuthMode>(AUTH_MODES);

/** Who may read /metrics: nobody (`off`: 404), anyone (`public`), or callers with a valid API key (`key`). */
export const METRICS_MODES = ['off', 'public', 'key'] as const;
export type MetricsMode = (typeof METRICS_MODES)[number];

const metricsMode = oneOf<MetricsMode>(METRICS_MODES);
const logFormat = oneOf<LogFormat>(LOG_FORMATS);

function setting<T>(
  env: string,
  defaultValue: T | undefined,
  parse: (raw: string, env: string) => T,
  doc: string,
): Setting<T> {
  return { env, default: defaultValue, parse, doc };
}

export const configSchema = {
  port: setting('PORT', 8080, nonNegativeInt, 'TCP port to listen on.'),
  host: setting('HOST', '127.0.0.1', text, 'Interface to bind.'),
  dataDir: setting(
    'DATA_DIR',
    './data',
    (raw) => raw,
    'Directory of the embedded DuckDB file (`ledger.duckdb`), made private to the service user (0700, the file 0600).',
  ),
  databaseUrl: setting<string>(
    'DATABASE_URL',
    undefined,
    text,
    'PostgreSQL connection string; when set, the store is PostgreSQL instead of DuckDB.',
  ),
  databaseReadUrl: setting<string>(
    'DATABASE_READ_URL',
    undefined,
    text,
    'With DATABASE_URL: a streaming standby of it that reports read from (imports, keys and the change log stay ' +
      'on DATABASE_URL).',
  ),
  indexMemoryMb: setting<number>(
    'INDEX_MEMORY_MB',
    undefined,
    positiveInt,
    'MiB of in-memory report indexes per instance; past it the least recently used companies are dropped (read ' +
      "again on their next report); unset = a quarter of the machine's memory (or of the cgroup's limit).",
  ),
  indexRssHeadroomMb: setting<number>(
    'INDEX_RSS_HEADROOM_MB',
    undefined,
    nonNegativeInt,
    "MiB the process may hold beyond INDEX_MEMORY_MB: past budget + this, the indexes' budget shrinks by the excess " +
      '(the least recently used companies dropped); unset = 200, 0 = no such limit.',
  ),
  storeMemoryMb: setting<number>(
    'STORE_MEMORY_MB',
    undefined,
    positiveInt,
    "MiB the embedded DuckDB store's own memory may use while serving (its memory_limit: cached pages of the ledger " +
      "file and the state of queries, which spill to <file>.tmp past it); unset = 64. PostgreSQL's is its server's.",
  ),
  preloadCompanies: setting(
    'PRELOAD_COMPANIES',
    100,
    nonNegativeInt,
    'Companies (the first by id) whose in-memory index an instance reads at start, within INDEX_MEMORY_MB; 0 ' +
      'behind a proxy that sends each company to one instance.',
  ),
  demoData: setting('DEMO_DATA', true, flag, 'Load the demo ledger into an empty store at start.'),
  companyName: setting(
    'COMPANY_NAME',
    'Reporting Service',
    text,
    'Company name echoed to callers that send no API key.',
  ),
  bodyLimitBytes: setting(
    'BODY_LIMIT_BYTES',
    1_048_576,
    nonNegativeInt,
    'Largest accepted request body in bytes, JSON and SOAP (413 above it).',
  ),
  debug: setting('DEBUG', false, flag, "ServiceStack's DebugMode: StackTrace in ResponseStatus, detailed 404 bodies."),
  validateResponses: setting(
    'VALIDATE_RESPONSES',
    false,
    flag,
    'Validate every response against openapi/ (always on in tests).',
  ),
  reportLinkSecret: setting<string>(
    'REPORT_LINK_SECRET',
    undefined,
    text,
    'Secret that signs report links; unset = a random one kept in the store, shared by its instances.',
  ),
  logLevel: setting('LOG_LEVEL', 'info', text, 'pino log level.'),
  logFormat: setting<LogFormat>(
    'LOG_FORMAT',
    'auto',
    logFormat,
    '`auto`: readable lines on a terminal, JSON lines otherwise; `json`: always JSON lines; `pretty`: always ' +
      'readable lines.',
  ),
  maxUrlLength: setting(
    'MAX_URL_LENGTH',
    8192,
    nonNegativeInt,
    'Longest accepted URL, path and query string, in characters (414 above it).',
  ),
  maxArrayItems: setting(
    'MAX_ARRAY_ITEMS',
    1000,
    nonNegativeInt,
    'Most items one array field (Locations, Filters) may carry (400 above it).',
  ),
  maxBatchAnswerBytes: setting(
    'MAX_BATCH_ANSWER_BYTES',
    33_554_432,
    nonNegativeInt,
    'Most bytes the answer of one batch (`/{format}/reply/{Op}[]`) may take, its list as written in the ' +
      "answer's format (400 naming the limit at the request that passes it).",
  ),
  maxReportColumns: setting(
    'MAX_REPORT_COLUMNS',
    1200,
    reportColumns,
    'Most monthly columns one report may have (1200 = 100 years; 400 naming StartDate and EndDate above it; at ' +
      "most 16,376, XLSX's limit).",
  ),
  requestTimeoutMs: setting(
    'REQUEST_TIMEOUT_MS',
    30_000,
    nonNegativeInt,
    'Time-out per request in ms: 503 RequestTimeout after it; 0 = none.',
  ),
  drainTimeoutMs: setting(
    'DRAIN_TIMEOUT_MS',
    10_000,
    nonNegativeInt,
    'How long SIGTERM/SIGINT waits for in-flight requests before closing their connections.',
  ),
  publicBaseUrl: setting<string>(
    'PUBLIC_BASE_URL',
    undefined,
    parsePublicBaseUrl,
    'Absolute base of every link the service writes (report Url, WSDL address, native types), e.g. ' +
      'https://reports.example.com/reporting; unset = from the request.',
  ),
  basePath: setting<string>(
    'BASE_PATH',
    undefined,
    parseBasePath,
    'Path prefix every route, page, WSDL and link is served under, e.g. /reporting; unset = the root.',
  ),
  trustProxy: setting<TrustProxy>(
    'TRUST_PROXY',
    undefined,
    parseTrustProxy,
    "Express's trust proxy: whose X-Forwarded-For/-Proto/-Host count (addresses, subnets, loopback, a hop " +
      "count, true); false = nobody's.",
  ),
  metrics: setting<MetricsMode>(
    'METRICS',
    'public',
    metricsMode,
    '`public`: /metrics open to anyone who reaches the port; `key`: only with a valid API key (X-ApiKey, ' +
      'Bearer, Basic user; any company); `off`: not served (404).',
  ),
  auth: setting<AuthMode>(
    'AUTH',
    'apikey',
    authMode,
    '`apikey`: reports need an API key for their company; `none`: every operation public (a warning at start).',
  ),
} as const;

type Schema = typeof configSchema;
type ValueOf<S> = S extends Setting<infer T> ? T : never;
type OptionalKeys = { [K in keyof Schema]: Schema[K]['default'] extends undefined ? K : never }[keyof Schema];

export type AppConfig = { [K in Exclude<keyof Schema, OptionalKeys>]: ValueOf<Schema[K]> } & {
  [K in OptionalKeys]?: ValueOf<Schema[K]>;
};

/** Every key with a default, at its default. */
export const configDefaults = Object.fromEntries(
  Object.entries(configSchema)
    .filter(([, s]) => s.default !== undefined)
    .map(([key, s]) => [key, s.default]),
) as Pick<AppConfig, Exclude<keyof Schema, OptionalKeys>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const config: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(configSchema) as [string, Setting<unknown>][]) {
    const raw = env[s.env];
    const value = raw === undefined || raw === '' ? s.default : s.parse(raw, s.env);
    if (value !== undefined) config[key] = value;
  }
  config.dataDir = path.resolve(config.dataDir as string);
  return config as AppConfig;
}
