/**
 * npm run conformance -- <base-url> [--api-key KEY] [--company ID] [--timeout MS]
 * Runs the contract conformance suite (src/conformance/suite.ts) against a running deployment and prints the table
 * of rules; exits 1 when any rule fails. Every request has a time-out (default 10 s): a rule whose request gets no
 * complete answer in time fails with that reason, so a host that never answers cannot hang the run. The API key may
 * also come from the API_KEY environment variable.
 * A host that cannot be reached at all is one sentence (exit 1), not a table of failed rules.
 */
import { formatResults, runConformance } from '../src/conformance/suite.ts';
import { CliError, runCli, usageError } from '../src/ops/cli-failure.ts';

const USAGE = 'npm run conformance -- <base-url> [--api-key KEY] [--company ID] [--timeout MS]';

/**
 * Any HTTP answer will do: it only proves something listens at the URL. A host that accepts the connection and then
 * stays silent is the suite's to report (each rule fails with its time-out); one that refuses it, or a name that does
 * not resolve, is a sentence.
 */
async function reachable(baseUrl: string, timeoutMs: number): Promise<void> {
  try {
    await (await fetch(baseUrl, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })).body?.cancel();
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`Nothing answers at ${baseUrl} (${reason}): start the service (npm start) or check the URL.`);
  }
}

async function main(): Promise<number> {
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
  if (!baseUrl || !/^https?:\/\//.test(baseUrl))
    throw usageError(
      `name the deployment's base URL (http:// or https://)${baseUrl ? `, got '${baseUrl}'` : ''}; usage: ${USAGE}`,
    );
  for (const [name, value] of [
    ['--company', company],
    ['--timeout', timeout],
  ] as const) {
    if (value !== undefined && !(Number(value) > 0))
      throw usageError(`${name} must be a positive number, got '${value}'; usage: ${USAGE}`);
  }
  const timeoutMs = timeout ? Number(timeout) : undefined;
  await reachable(baseUrl, timeoutMs ?? 10_000);
  const results = await runConformance(baseUrl, {
    apiKey: apiKey || undefined,
    companyId: company ? Number(company) : undefined,
    timeoutMs,
  });
  console.log(formatResults(results));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

await runCli(main);
