/**
 * npm run shadow -- --old <url> --new <url> [--old2 <url>] --listen <port> [options]
 * A reverse proxy that serves every client the old host's answer, unchanged and streamed, and mirrors each request
 * to the new service (and to --old2 for noise) through a bounded queue, comparing the answers with compare's
 * comparers and rules; a live page at /_shadow (JSON at /_shadow.json); --report written on SIGTERM or SIGINT.
 * See src/shadow/ and the README's "Shadow traffic" section.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { DEFAULT_HEADERS } from '../src/compare/rules.ts';
import { JSON_PATH, PAGE_PATH, SHADOW_DEFAULTS, type ShadowOptions } from '../src/shadow/options.ts';
import { ShadowProxy } from '../src/shadow/proxy.ts';
import { CREDENTIAL_HEADERS } from '../src/shadow/redact.ts';
import { runCli } from '../../../src/tooling-exports.ts';
import { headerPairs, rulesFromOptions, UsageError } from './compare-options.ts';
import { CredentialOptionError, loadCredentialMap, refuseCredentialHeaders } from '../src/shadow/credentials.ts';
import { pageToken } from '../src/shadow/page-access.ts';

/** Per-host headers: never a credential (credentials.ts). */
function hostHeaders(values: string[] | undefined, option: string): Record<string, string> {
  const headers = headerPairs(values, option);
  refuseCredentialHeaders(headers, option);
  return headers;
}

const D = SHADOW_DEFAULTS;
const USAGE = `usage: npm run shadow -- --old <url> --new <url> --listen <port> [options]
       npm run shadow -- --mirror-sink --old <url> --new <url> --listen <port> [options]   (behind nginx's mirror)

  --old <url>              the host clients are served from (before the switch)
  --new <url>              the new service, mirrored to and compared
  --old2 <url>             a second old instance for noise (default: the old host a second time, GET and HEAD only)
  --listen <port>          the proxy's port (0: any free port); --host <address> (default 127.0.0.1)
  --serve old|new          whose answers clients get (default old); new: after the switch, the old host in the shadow
  --mirror-sink            no proxying: nginx serves the old host and mirrors requests here (deploy/nginx/
                           reporting-service-shadow.conf); each is answered 204 at once, then the old host (or --old2)
                           and the new service are asked and compared; only the caller's own credentials are sent
  --old-header 'K: V'      header sent to the old host (repeatable), replacing the client's of that name; also to
  --old2-header 'K: V'     --old2 unless it has headers of its own; never a credential (X-ApiKey, Authorization,
  --new-header 'K: V'      Cookie): every request carries its caller's own
  --credential-map <file>  JSON list of {"old": "X-ApiKey: <old host's>", "new": "X-ApiKey: <new service's>"}: a
                           request with a mapped credential is mirrored with its counterpart
  --allow-post             mirror POST too (default: GET and HEAD only)
  --sample <rate>          share of requests mirrored, 0 < rate <= 1 (default ${D.sample})
  --queue <n>              mirrors waiting or in flight at most; more are dropped and counted (default ${D.queueLimit})
  --concurrency <n>        mirrors in flight at once (default ${D.concurrency})
  --timeout <ms>           time-out of every mirrored request (default ${D.timeoutMs})
  --serve-timeout <ms>     time-out of the served host's answer: 504 when its headers have not come
                           (default ${D.serveTimeoutMs})
  --body-limit <bytes>     largest request body mirrored (default ${D.bodyLimit}); larger ones are served, not mirrored
  --answer-limit <bytes>   largest answer compared (default ${D.answerLimit})
  --keep <n>               latest differing exchanges kept for the page (default ${D.keep})
  --breaker <n>            after n mirrored requests in a row found the mirrored host down (refused, reset, time-out),
                           stop mirroring (dropped, counted) and probe with one request per --breaker-delay
                           (default ${D.breakerFailures})
  --breaker-delay <ms>     how long the open circuit waits before each probe (default ${D.breakerDelayMs})
  --mirror-nice <0-19>     the mirror's thread (Linux) runs at SCHED_IDLE and this nice value, so that mirroring and
                           comparing take only the CPU serving leaves (default ${D.mirrorNice}; 0: the proxy's own
                           priority)
  --cpu-busy <percent>     mirrors are dropped (counted) while the machine's CPUs were busy (not idle) for at least
                           this share of the latest half second: the hosts a mirror asks answer at their own
                           priority, so a busy machine keeps its CPU for the clients (default ${D.cpuBusy * 100};
                           100: never)
  --header NAME, --headers A,B, --ignore PATH, --tolerance PATH=N[%], --rules FILE
                           what is compared and allowed, as in npm run compare
                           (default headers: ${DEFAULT_HEADERS.join(', ')})
  --page-listen <port>     the port of ${PAGE_PATH} and ${JSON_PATH} (default 0: any free port; never the proxy's)
  --page-host <address>    where the page listens (default 127.0.0.1)
  --page-token <token>     the page's token, at least 16 characters (default: a random one, printed at start)
  --show-bodies            keep the old and new bodies of differing exchanges for the page (default: fields only)
  --memory-limit <bytes>   bytes the copies of requests and answers may hold at once (default ${D.memoryLimit})
  --report <file>          write the JSON figures and latest differences there on SIGTERM or SIGINT`;

function number(
  value: string | undefined,
  option: string,
  fallback: number,
  check: (n: number) => boolean,
  expected: string,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`${option} must be ${expected}, got '${value}'`);
  return n;
}
const positiveInt = (value: string | undefined, option: string, fallback: number) =>
  number(value, option, fallback, (n) => Number.isInteger(n) && n > 0, 'a positive whole number');
const port = (value: string | undefined, option: string) =>
  number(value, option, -1, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'a port number (0-65535)');

function baseUrl(value: string | undefined, option: string): string {
  if (value === undefined) throw new UsageError(`${option} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${option} must be an http(s) URL, got '${value}'`);
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash)
    throw new UsageError(`${option} must be an http(s) base URL without query, got '${value}'`);
  if (url.username || url.password)
    throw new UsageError(
      `${option}: credentials in the URL would be sent for every caller; callers' own go, or map them with ` +
        `--credential-map`,
    );
  return value.replace(/\/+$/, '');
}

function listen(server: Server, portNumber: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(portNumber, host, () => {
      const address = server.address() as AddressInfo;
      resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

async function main(): Promise<number> {
  let options: ShadowOptions;
  let listenPort: number;
  let pagePort: number;
  let pageHost: string;
  let token: string;
  let host: string;
  let report: string | undefined;
  try {
    const { values: o } = parseArgs({
      options: {
        old: { type: 'string' },
        old2: { type: 'string' },
        new: { type: 'string' },
        listen: { type: 'string' },
        host: { type: 'string' },
        serve: { type: 'string' },
        'old-header': { type: 'string', multiple: true },
        'old2-header': { type: 'string', multiple: true },
        'new-header': { type: 'string', multiple: true },
        'allow-post': { type: 'boolean' },
        'mirror-sink': { type: 'boolean' },
        sample: { type: 'string' },
        queue: { type: 'string' },
        concurrency: { type: 'string' },
        timeout: { type: 'string' },
        'serve-timeout': { type: 'string' },
        'body-limit': { type: 'string' },
        'answer-limit': { type: 'string' },
        keep: { type: 'string' },
        breaker: { type: 'string' },
        'breaker-delay': { type: 'string' },
        'mirror-nice': { type: 'string' },
        'cpu-busy': { type: 'string' },
        header: { type: 'string', multiple: true },
        headers: { type: 'string' },
        ignore: { type: 'string', multiple: true },
        tolerance: { type: 'string', multiple: true },
        rules: { type: 'string' },
        'page-listen': { type: 'string' },
        'page-host': { type: 'string' },
        'page-token': { type: 'string' },
        'credential-map': { type: 'string' },
        'show-bodies': { type: 'boolean' },
        'memory-limit': { type: 'string' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (o.help) {
      console.log(USAGE);
      return 0;
    }
    const rules = rulesFromOptions(o);
    if (o.serve !== undefined && o.serve !== 'old' && o.serve !== 'new')
      throw new UsageError(`--serve must be 'old' or 'new', got '${o.serve}'`);
    if (o.listen === undefined) throw new UsageError('--listen is required');
    listenPort = port(o.listen, '--listen');
    pagePort = o['page-listen'] === undefined ? 0 : port(o['page-listen'], '--page-listen');
    pageHost = o['page-host'] ?? '127.0.0.1';
    token = pageToken(o['page-token']);
    host = o.host ?? '127.0.0.1';
    report = o.report;
    const oldHeaders = headerPairs(o['old-header'], '--old-header');
    const mirrorSink = !!o['mirror-sink'];
    if (mirrorSink) {
      if (o.serve === 'new')
        throw new UsageError('--mirror-sink compares what nginx serves: the old host (--serve old)');
      // A sink is sent every mirrored caller's request: it forwards their own credentials, never a key of its own.
      for (const [option, values] of [
        ['--old-header', o['old-header']],
        ['--old2-header', o['old2-header']],
        ['--new-header', o['new-header']],
      ] as const)
        for (const name of Object.keys(headerPairs(values, option)))
          if (CREDENTIAL_HEADERS.has(name.toLowerCase()))
            throw new UsageError(
              `${option} '${name}': a mirror sink sends only each caller's own credentials, never a key of its own`,
            );
    }
    refuseCredentialHeaders(oldHeaders, '--old-header');
    options = {
      old: { base: baseUrl(o.old, '--old'), headers: oldHeaders },
      ...(o.old2
        ? {
            old2: {
              base: baseUrl(o.old2, '--old2'),
              headers: o['old2-header'] ? hostHeaders(o['old2-header'], '--old2-header') : oldHeaders,
            },
          }
        : {}),
      new: { base: baseUrl(o.new, '--new'), headers: hostHeaders(o['new-header'], '--new-header') },
      serve: (o.serve as 'old' | 'new' | undefined) ?? D.serve,
      rules,
      allowPost: !!o['allow-post'],
      mirrorSink,
      sample: number(o.sample, '--sample', D.sample, (n) => n > 0 && n <= 1, 'a rate above 0 and at most 1'),
      queueLimit: positiveInt(o.queue, '--queue', D.queueLimit),
      concurrency: positiveInt(o.concurrency, '--concurrency', D.concurrency),
      timeoutMs: positiveInt(o.timeout, '--timeout', D.timeoutMs),
      serveTimeoutMs: positiveInt(o['serve-timeout'], '--serve-timeout', D.serveTimeoutMs),
      bodyLimit: positiveInt(o['body-limit'], '--body-limit', D.bodyLimit),
      answerLimit: positiveInt(o['answer-limit'], '--answer-limit', D.answerLimit),
      keep: positiveInt(o.keep, '--keep', D.keep),
      breakerFailures: positiveInt(o.breaker, '--breaker', D.breakerFailures),
      breakerDelayMs: positiveInt(o['breaker-delay'], '--breaker-delay', D.breakerDelayMs),
      mirrorNice: number(
        o['mirror-nice'],
        '--mirror-nice',
        D.mirrorNice,
        (n) => Number.isInteger(n) && n >= 0 && n <= 19,
        'a whole number from 0 to 19',
      ),
      cpuBusy:
        number(
          o['cpu-busy'],
          '--cpu-busy',
          D.cpuBusy * 100,
          (n) => n > 0 && n <= 100,
          'a percent above 0, at most 100',
        ) / 100,
      credentialMap: o['credential-map'] ? loadCredentialMap(o['credential-map']) : [],
      showBodies: !!o['show-bodies'],
      memoryLimit: positiveInt(o['memory-limit'], '--memory-limit', D.memoryLimit),
    };
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof CredentialOptionError ||
      /^--page-token/.test((error as Error).message) ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ||
      /^(rules file|--tolerance)/.test((error as Error).message)
    ) {
      console.error(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }

  const shadow = new ShadowProxy(options, token);
  const server = createServer({ keepAliveTimeout: 65_000 }, shadow.handle);
  server.on('connection', () => shadow.stats.connected());
  const pageServer = createServer(shadow.handlePage);
  const url = await listen(server, listenPort, host);
  const pageUrl = await listen(pageServer, pagePort, pageHost);
  const other = options.serve === 'old' ? options.new.base : options.old.base;
  const served = options.serve === 'old' ? options.old.base : options.new.base;
  const noise = options.old2 ? ` and ${options.old2.base} (noise)` : '';
  console.log(
    options.mirrorSink
      ? `comparing each mirrored request: old ${options.old.base} against new ${options.new.base}${noise}`
      : `serving ${options.serve} ${served}, mirroring to ${other}${noise}`,
  );
  console.log(
    `live page ${pageUrl}${PAGE_PATH}?token=${token}, ` +
      `JSON ${pageUrl}${JSON_PATH}?token=${token}${report ? `; report ${report} on SIGTERM` : ''}`,
  );
  console.log(`${options.mirrorSink ? 'mirror sink' : 'shadow proxy'} listening on ${url}`);

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      if (report) {
        writeFileSync(report, `${JSON.stringify(shadow.stats.snapshot(), null, 2)}\n`);
        console.log(`${signal}: report written to ${report}`);
      }
      server.close();
      server.closeIdleConnections();
      pageServer.close();
      void shadow.close().then(() => resolve(0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

await runCli(main);
