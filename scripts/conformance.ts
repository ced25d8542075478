/**
 * npm run conformance -- <base-url> [--api-key KEY] [--company ID] [--timeout MS]
 * Runs the contract conformance suite (src/conformance/suite.ts) against a running deployment and prints the table
 * of rules; exits 1 when any rule fails. Every request has a time-out (default 10 s): a rule whose request gets no
 * complete answer in time fails with that reason, so a host that never answers cannot hang the run. The API key may also come from the API_KEY environment variable.
 */
import { formatResults, runConformance } from '../src/conformance/suite.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const apiKey = option('--api-key') ?? process.env.API_KEY;
const company = option('--company');
const timeout = option('--timeout');
const baseUrl = args[0];
if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
  console.error('usage: npm run conformance -- <base-url> [--api-key KEY] [--company ID] [--timeout MS]');
  process.exit(2);
}
const results = await runConformance(baseUrl, { apiKey: apiKey || undefined, companyId: company ? Number(company) : undefined, timeoutMs: timeout ? Number(timeout) : undefined });
console.log(formatResults(results));
process.exit(results.some((r) => r.status === 'fail') ? 1 : 0);
