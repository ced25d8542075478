/**
 * Configuration as a schema: each key has its environment variable, default and doc. Read once at start-up.
 */
import path from 'node:path';

export interface AppConfig {
  /** TCP port (PORT). */
  port: number;
  /** Interface to bind (HOST). */
  host: string;
  /** Directory of the embedded DuckDB file (DATA_DIR). */
  dataDir: string;
  /** PostgreSQL connection string; when set, the store is PostgreSQL instead of DuckDB (DATABASE_URL). */
  databaseUrl?: string;
  /** Company name echoed to callers that send no API key (COMPANY_NAME). */
  companyName: string;
  /** Debug mode: StackTrace in ResponseStatus, detailed 404 bodies (DEBUG=1). */
  debug: boolean;
  /** Largest accepted request body in bytes, JSON and SOAP (BODY_LIMIT_BYTES). */
  bodyLimitBytes: number;
  /** Longest accepted URL, path and query string, in characters; 414 above it (MAX_URL_LENGTH). */
  maxUrlLength: number;
  /** Most items one array field (Locations, Filters) may carry; 400 above it (MAX_ARRAY_ITEMS). */
  maxArrayItems: number;
  /** Time-out per request in ms; a request still running then gets 503 RequestTimeout; 0 = none (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Validate responses against openapi/ (VALIDATE_RESPONSES=1; on in tests). */
  validateResponses: boolean;
  /** pino log level (LOG_LEVEL). */
  logLevel: string;
  /** How long SIGTERM waits for in-flight requests before closing their connections (DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
  /** Load the demo ledger into an empty store at start (DEMO_DATA, default 1). */
  demoData: boolean;
  /** Secret that signs report links (REPORT_LINK_SECRET); unset = a random one kept in the store, shared by its instances. */
  reportLinkSecret?: string;
}

function intFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}

function flagFrom(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be a boolean (1/0, true/false), got '${raw}'`);
}

export function loadConfig(): AppConfig {
  return {
    port: intFrom('PORT', 8080),
    host: process.env.HOST || '127.0.0.1',
    dataDir: path.resolve(process.env.DATA_DIR || 'data'),
    databaseUrl: process.env.DATABASE_URL || undefined,
    companyName: process.env.COMPANY_NAME || 'Reporting Service',
    debug: flagFrom('DEBUG', false),
    bodyLimitBytes: intFrom('BODY_LIMIT_BYTES', 1_048_576),
    maxUrlLength: intFrom('MAX_URL_LENGTH', 8192),
    maxArrayItems: intFrom('MAX_ARRAY_ITEMS', 1000),
    requestTimeoutMs: intFrom('REQUEST_TIMEOUT_MS', 30_000),
    validateResponses: flagFrom('VALIDATE_RESPONSES', false),
    demoData: flagFrom('DEMO_DATA', true),
    logLevel: process.env.LOG_LEVEL || 'info',
    drainTimeoutMs: intFrom('DRAIN_TIMEOUT_MS', 10_000),
    reportLinkSecret: process.env.REPORT_LINK_SECRET || undefined,
  };
}
