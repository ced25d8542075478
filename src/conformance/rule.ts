/**
 * One conformance rule as a record: its name (`op:Echo:200`, `wire:jsonp`), the description the table prints, and
 * `run`, which sends what it needs through the context and throws RuleFailure (with the reason) when the answer breaks
 * the rule, or NotApplicable when the rule cannot be checked against this deployment. Anything else it throws is an
 * error of the run and fails the rule with `error: …`.
 */
import type { ContractRequest } from './requests.ts';

/** One request and its whole answer. */
export interface Exchange {
  /** The request as the failure report shows it: request line, headers, body. */
  request: string;
  status: number;
  contentType: string;
  /** The Location header of a redirect. */
  location?: string;
  text: string;
  json?: unknown;
}

export interface RuleContext {
  /** Sends one request (with the caller's API key unless `key: false`) and returns the whole answer. */
  send(request: ContractRequest): Promise<Exchange>;
  apiKey?: string;
}

export interface ConformanceRule {
  name: string;
  description: string;
  run(context: RuleContext): Promise<void>;
}

export class RuleFailure extends Error {}
export class NotApplicable extends Error {}

export function check(condition: unknown, reason: string): asserts condition {
  if (!condition) throw new RuleFailure(reason);
}

/** Rules whose request must carry a key cannot be checked without one. */
export function requireApiKey(context: RuleContext, reason: string): void {
  if (!context.apiKey) throw new NotApplicable(reason);
}

/** The body is a ServiceStack error: `{ResponseStatus: {ErrorCode, Message}}`. */
export function hasResponseStatus(json: unknown): boolean {
  const rs = (json as { ResponseStatus?: { ErrorCode?: unknown; Message?: unknown } } | undefined)?.ResponseStatus;
  return !!rs && typeof rs.ErrorCode === 'string' && typeof rs.Message === 'string';
}
