/**
 * Report links: the token of `/v1/Reporting/ProfitAndLoss/Flat/Reports/{token}` carries the effective options
 * of a report, so that any instance rebuilds the same report from the link alone (no per-process memory).
 *
 * token = base64url(JSON payload) "." base64url(HMAC-SHA256(secret, "pnl-flat-link.v1." + payload part))
 *
 * The payload is the canonical effective options with the date range always explicit (a relative range is
 * resolved once, when the link is made, and kept only as a label for the SelectedOptions echo). The signature
 * is checked before the payload is even decoded; a token that does not verify is not a report (404).
 * Pure: the secret is given.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OrderBy, RelativeDateRange } from '../contract/dtos.ts';
import { formatIsoDate } from '../scalars/dates.ts';
import type { FlatOptions } from './flat-options.ts';

/** What a link says about its report (version 1). Short keys keep URLs compact. */
export interface ReportLinkPayload {
  v: 1;
  /** CompanyId. */
  c: number;
  /** First and last day, `YYYY-MM-DD`, inclusive. */
  f: string;
  t: string;
  /** RelativeDateRange the range was resolved from, when the request had no custom range. */
  r?: RelativeDateRange;
  /** UseAccountMapping, IncludeComputedColumns (0/1). */
  m: 0 | 1;
  x: 0 | 1;
  /** OrderBy (canonical). */
  o: OrderBy;
  /** Locations (empty = all) and Filters (lowercase 32-hex). */
  l: number[];
  g: string[];
}

const DOMAIN = 'pnl-flat-link.v1.';
/** Longest token accepted (also the contract's maxLength): room for many locations and filters. */
export const MAX_TOKEN_LENGTH = 4096;
const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const GUID = /^[0-9a-f]{32}$/;

function sign(secret: string, body: string): Buffer {
  return createHmac('sha256', secret)
    .update(DOMAIN + body)
    .digest();
}

export function linkPayload(options: FlatOptions): ReportLinkPayload {
  const payload: ReportLinkPayload = {
    v: 1,
    c: options.companyId,
    f: formatIsoDate(options.range.from),
    t: formatIsoDate(options.range.to),
    m: options.useAccountMapping ? 1 : 0,
    x: options.includeComputedColumns ? 1 : 0,
    o: options.orderBy,
    l: options.locations,
    g: options.filters,
  };
  if (!options.useCustomDateRange && options.relativeDateRange) payload.r = options.relativeDateRange;
  return payload;
}

export function encodeReportToken(payload: ReportLinkPayload, secret: string): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

function isPayload(value: unknown): value is ReportLinkPayload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  const bit = (b: unknown) => b === 0 || b === 1;
  return (
    p.v === 1 &&
    Number.isSafeInteger(p.c) &&
    typeof p.f === 'string' &&
    ISO_DAY.test(p.f) &&
    typeof p.t === 'string' &&
    ISO_DAY.test(p.t) &&
    (p.r === undefined || typeof p.r === 'string') &&
    bit(p.m) &&
    bit(p.x) &&
    typeof p.o === 'string' &&
    Array.isArray(p.l) &&
    p.l.every((id) => Number.isSafeInteger(id)) &&
    Array.isArray(p.g) &&
    p.g.every((id) => typeof id === 'string' && GUID.test(id))
  );
}

/** The payload of a genuine token, or undefined for anything else (malformed, tampered, signed with another secret). */
export function decodeReportToken(token: string, secret: string): ReportLinkPayload | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const [, body, signature] = match as unknown as [string, string, string];
  const given = Buffer.from(signature, 'base64url');
  const expected = sign(secret, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return isPayload(value) ? value : undefined;
}

export const REPORTS_PATH = '/v1/Reporting/ProfitAndLoss/Flat/Reports';

/** The absolute link of a report: `<base>/v1/Reporting/ProfitAndLoss/Flat/Reports/<token>`. */
export function reportLink(baseUrl: string, options: FlatOptions, secret: string): string {
  return `${baseUrl}${REPORTS_PATH}/${encodeReportToken(linkPayload(options), secret)}`;
}
