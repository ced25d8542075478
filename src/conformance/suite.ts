/**
 * The contract conformance suite: rules derived from openapi/ (every operation answers its documented success
 * status and content type; documented error statuses carry a ResponseStatus; operations that require a key refuse
 * a request without one) and wsdl/ (the WSDL is served and names the service, port type and binding, with no
 * operations; a POSTed SOAP 1.2 message gets a SOAP fault), plus the wire rules of the spec (JSON default, `.json`,
 * `?format=json`, JSONP wrapping and sanitising, case-insensitive routes, 404 text/plain, 405 for an unknown
 * `/json/reply/` operation, `/Date()` and 32-hex GUID forms, XML). It speaks plain HTTP (fetch), so it runs against
 * any deployment: `npm run conformance -- <base-url>`, and in `npm test` against the in-process server.
 * Each rule is a small record (rule.ts) in one of three registries (contract-rules.ts, wsdl-rules.ts, wire-rules.ts);
 * runConformance runs them in order through one sender (sender.ts), which keeps the exchange a failure prints.
 */
import { contractRules } from './contract-rules.ts';
import { NotApplicable, RuleFailure, type ConformanceRule, type Exchange, type RuleContext } from './rule.ts';
import { createSender, type Sender } from './sender.ts';
import { wireRules } from './wire-rules.ts';
import { wsdlRules } from './wsdl-rules.ts';

export type RuleStatus = 'pass' | 'fail' | 'n/a';
export interface RuleResult {
  rule: string;
  description: string;
  status: RuleStatus;
  /** Why it failed or does not apply. */
  reason?: string;
  exchange?: { request: string; response: string };
}
export interface ConformanceOptions {
  apiKey?: string;
  /** Company of the sample report requests (default 1). */
  companyId?: number;
  fetch?: typeof fetch;
  /** Longest wait for one answer, headers and body (default 10 s): a rule whose request times out fails, saying so. */
  timeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The rule registries, in the order the table lists them. */
function conformanceRules(companyId: number): ConformanceRule[] {
  return [...contractRules(companyId), ...wsdlRules(), ...wireRules(companyId)];
}

function shownExchange(exchange: Exchange): RuleResult['exchange'] {
  const body = exchange.text.length > 600 ? `${exchange.text.slice(0, 600)}…` : exchange.text;
  return { request: exchange.request, response: `${exchange.status} ${exchange.contentType}\n${body}` };
}

async function runRule(
  { name, description, run }: ConformanceRule,
  context: RuleContext,
  sender: Sender,
): Promise<RuleResult> {
  sender.forget();
  try {
    await run(context);
    return { rule: name, description, status: 'pass' };
  } catch (error) {
    if (error instanceof NotApplicable) return { rule: name, description, status: 'n/a', reason: error.message };
    const reason = error instanceof RuleFailure ? error.message : `error: ${(error as Error).message}`;
    const exchange = sender.last();
    return { rule: name, description, status: 'fail', reason, exchange: exchange && shownExchange(exchange) };
  }
}

export async function runConformance(baseUrl: string, options: ConformanceOptions = {}): Promise<RuleResult[]> {
  const sender = createSender({
    baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch ?? fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
  const context: RuleContext = { send: sender.send, apiKey: options.apiKey };
  const results: RuleResult[] = [];
  for (const rule of conformanceRules(options.companyId ?? 1)) results.push(await runRule(rule, context, sender));
  return results;
}

/** The result table; failures follow with their request and response. */
export function formatResults(results: RuleResult[]): string {
  const width = Math.max(...results.map((r) => r.rule.length), 4);
  const lines = [`${'rule'.padEnd(width)}  status  description`, `${'-'.repeat(width)}  ------  -----------`];
  for (const r of results) {
    const reason = r.status === 'n/a' && r.reason ? ` (${r.reason})` : '';
    lines.push(`${r.rule.padEnd(width)}  ${r.status.padEnd(6)}  ${r.description}${reason}`);
  }
  const failed = results.filter((r) => r.status === 'fail');
  for (const f of failed) {
    lines.push('', `FAIL ${f.rule}: ${f.reason ?? ''}`);
    if (f.exchange)
      lines.push('  request:', ...indent(f.exchange.request), '  response:', ...indent(f.exchange.response));
  }
  const count = (s: RuleStatus) => results.filter((r) => r.status === s).length;
  lines.push('', `${count('pass')} pass, ${count('fail')} fail, ${count('n/a')} n/a`);
  return lines.join('\n');
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => `    ${l}`);
}
