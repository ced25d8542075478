/**
 * The shadow proxy (node:http, streaming): every client request goes to the served host (old, or new after the
 * switch) with its headers as sent (Host included, so the host answers as it did without the proxy; hop-by-hop
 * headers dropped, X-Forwarded-For appended, the served host's own headers set), and the answer streams back as it
 * comes: status, headers and body bytes unchanged. Whether the exchange will be mirrored is decided when the request
 * comes (method, --sample, a full queue, an open circuit breaker): only then is a copy of the request body (up to
 * --body-limit) and of the answer (up to --answer-limit) kept meanwhile, and when the answer has ended the raw copy
 * is offered to the mirror's bounded queue (mirror-pool.ts), which captures, mirrors and compares it on its own
 * thread, so no client ever waits for the mirror and the event loop does little more than stream. The live page and
 * its JSON are served at reserved paths (or on a port of their own).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { redactApiKey } from '../../../../src/tooling-exports.ts';
import { endpointOf } from '../compare/endpoint.ts';
import { MirrorBreaker } from './breaker.ts';
import { CpuBusy } from './cpu-busy.ts';
import { endToEnd, headerRecord, withHeaders } from './hop-headers.ts';
import type { MirrorFailure } from './mirror-pool.ts';
import { MirrorPool } from './mirror-pool.ts';
import type { MirrorJob, MirrorResult, ServedAnswer } from './mirror.ts';
import { JSON_PATH, PAGE_PATH, type ShadowOptions } from './options.ts';
import { PAGE_CSP, renderShadowPage } from './page.ts';
import { pageAuthorized } from './page-access.ts';
import { mirroredRawHeaders } from './credentials.ts';
import { ByteBudget } from './byte-budget.ts';
import { redactText, requestSecrets } from './redact.ts';
import { ShadowStats } from './stats.ts';

const SAFE = new Set(['GET', 'HEAD']);
/**
 * Endpoint names remembered by method and path (the route matching is the costly part); more paths are named afresh.
 */
const NAMES_KEPT = 1_000;

/**
 * Appends to a body copy until `limit` bytes, each chunk taken from the proxy's byte budget; past the limit (`over`)
 * or the budget (`starved`) the copy is dropped and its bytes given back.
 */
class BodyCopy {
  private chunks: Buffer[] = [];
  size = 0;
  over = false;
  starved = false;

  constructor(
    private readonly limit: number,
    private readonly budget: ByteBudget,
  ) {}

  readonly add = (chunk: Buffer): void => {
    if (this.over || this.starved) return;
    if (this.size + chunk.length > this.limit) this.over = true;
    else if (!this.budget.take(chunk.length)) this.starved = true;
    else {
      this.size += chunk.length;
      this.chunks.push(chunk);
      return;
    }
    this.release();
  };

  /** Gives the copy's bytes back to the budget (the copy is dropped, or its job has run). */
  release(): void {
    this.budget.give(this.size);
    this.size = 0;
    this.chunks = [];
  }

  /**
   * The bytes in a buffer of their own (not a view of a shared pool), so it can be moved to the mirror's thread; the
   * chunks are dropped (the budget is given back with the job's result).
   */
  bytes(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    this.chunks = [];
    return out;
  }
}

/**
 * Not mirrored: skipped by choice, or dropped (the queue is full, the circuit is open); counted when the answer ends.
 */
type NotMirrored = { skipped: string } | { dropped: string };
/** Clients keep a busy CPU: the hosts a mirror asks would answer it at their own priority (cpu-busy.ts). */
const CPU_BUSY = 'CPU busy (--cpu-busy)';

export class ShadowProxy {
  readonly stats: ShadowStats;
  private readonly pool: MirrorPool;
  private readonly breaker: MirrorBreaker;
  private readonly cpu: CpuBusy;
  private readonly agent: http.Agent;
  private readonly served;
  private readonly target: {
    protocol: string;
    hostname: string;
    port: string;
    prefix: string;
    client: typeof http | typeof https;
  };
  private readonly openReason: string;
  private readonly names = new Map<string, string>();
  private readonly pending = new Map<number, string>();
  private nextId = 1;
  private readonly budget: ByteBudget;
  /** Bytes each job offered to the mirror holds until its result comes back. */
  private readonly held = new Map<number, number>();

  constructor(
    private readonly options: ShadowOptions,
    private readonly pageToken: string,
  ) {
    this.budget = new ByteBudget(options.memoryLimit);
    this.served = options.serve === 'old' ? options.old : options.new;
    const target = new URL(this.served.base);
    const client = target.protocol === 'https:' ? https : http;
    this.target = {
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      prefix: target.pathname.replace(/\/+$/, ''),
      client,
    };
    // Hot sockets first ('lifo'): under a light load fewer connections stay busy; the rest time out as idle.
    this.agent = new client.Agent({ keepAlive: true, maxSockets: 512, scheduling: 'lifo' });
    this.breaker = new MirrorBreaker(options.breakerFailures, options.breakerDelayMs);
    this.cpu = new CpuBusy(options.cpuBusy);
    this.openReason =
      `circuit open: the ${options.serve === 'old' ? 'new' : 'old'} host failed ${options.breakerFailures} times ` +
      `in a row`;
    const hostSecrets = [
      ...[options.old, options.old2, options.new].flatMap((h) => (h ? requestSecrets(h.headers, '') : [])),
      ...options.credentialMap.flatMap((pair) =>
        requestSecrets({ [pair.old.name]: pair.old.value, [pair.new.name]: pair.new.value }, ''),
      ),
    ];
    this.pool = new MirrorPool(
      {
        old: options.old,
        old2: options.old2,
        new: options.new,
        serve: options.serve,
        rules: options.rules,
        timeoutMs: options.timeoutMs,
        concurrency: options.concurrency,
        hostSecrets,
        maxBodyChars: 200_000,
        showBodies: options.showBodies,
        credentialMap: options.credentialMap,
        niceness: options.mirrorNice,
      },
      options.queueLimit,
      (result) => this.onMirrored(result),
    );
    const shown = (base: string) => redactApiKey(base);
    this.stats = new ShadowStats({
      serving: options.serve,
      hosts: {
        old: shown(options.old.base),
        old2: shown((options.old2 ?? options.old).base),
        new: shown(options.new.base),
      },
      keep: options.keep,
      queueLimit: options.queueLimit,
      concurrency: options.concurrency,
      queued: () => this.pool.queued,
      breaker: () => this.breaker.snapshot(),
    });
  }

  /** The proxy's (or the mirror sink's) request listener: the page is never on this port. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.options.mirrorSink) this.sink(req, res);
    else this.proxy(req, res);
  };

  /**
   * The listener of the page's own port: the page and its JSON for a request with the page's token (page-access.ts),
   * else 401 or 404; a failure to render is a 500, never the proxy's end.
   */
  readonly handlePage = (req: IncomingMessage, res: ServerResponse): void => {
    const text = (status: number, message: string) =>
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(message);
    if (!pageAuthorized(req, this.pageToken))
      return void text(401, `the page needs its token: ?token=… or Authorization: Bearer … (printed at start)\n`);
    try {
      if (!this.servePage(req, res)) text(404, `not found: the page is ${PAGE_PATH}, its JSON ${JSON_PATH}\n`);
    } catch (error) {
      if (!res.headersSent) text(500, `the page could not be made: ${(error as Error).message}\n`);
      else res.destroy();
    }
  };

  async close(): Promise<void> {
    this.agent.destroy();
    this.cpu.close();
    await this.pool.close();
  }

  private servePage(req: IncomingMessage, res: ServerResponse): boolean {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PAGE_PATH && path !== JSON_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end(`${req.method} is not allowed on ${path}\n`);
      return true;
    }
    const snapshot = this.stats.snapshot();
    const [type, body] =
      path === PAGE_PATH
        ? [
            'text/html; charset=utf-8',
            renderShadowPage(snapshot, `${JSON_PATH}?token=${encodeURIComponent(this.pageToken)}`),
          ]
        : ['application/json; charset=utf-8', `${JSON.stringify(snapshot, null, 2)}\n`];
    res.writeHead(200, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }

  /** The request's endpoint (`GET /v1/echo/{Message}`), with no key or credential of the request in it. */
  private endpointName(method: string, url: string, secrets: string[]): string {
    const query = url.indexOf('?');
    const key = `${method} ${query < 0 ? url : url.slice(0, query)}`;
    let name = this.names.get(key);
    if (name === undefined) {
      try {
        name = redactApiKey(endpointOf(method, url));
      } catch {
        name = redactApiKey(key);
      }
      if (this.names.size < NAMES_KEPT) this.names.set(key, name);
    }
    return secrets.length ? redactText(name, secrets) : name;
  }

  /** Why this exchange will not be mirrored, decided as the request comes (so no copy is kept), or undefined. */
  private notMirrored(method: string): NotMirrored | undefined {
    if (!SAFE.has(method) && !(method === 'POST' && this.options.allowPost))
      return { skipped: method === 'POST' ? 'POST without --allow-post' : `${method} is never mirrored` };
    if (this.options.mirrorSink && !SAFE.has(method) && !this.options.old2)
      return { skipped: `${method} in a mirror sink needs --old2 (the old host has answered it already)` };
    if (this.options.sample < 1 && Math.random() >= this.options.sample) return { skipped: 'not in the --sample' };
    if (this.cpu.busy) return { dropped: CPU_BUSY };
    if (this.breaker.refusing) return { dropped: this.openReason };
    if (this.pool.full) return { dropped: 'queue full' };
    return undefined;
  }

  private count(endpoint: string, why: NotMirrored): void {
    if ('skipped' in why) this.stats.skipped(endpoint, why.skipped);
    else this.stats.dropped(endpoint, why.dropped);
  }

  private proxy(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const forwarded = endToEnd(req.rawHeaders);
    const clientHeaders = headerRecord(forwarded);
    const secrets = requestSecrets(clientHeaders, url);
    const endpoint = this.endpointName(method, url, secrets);
    this.stats.served(endpoint);
    const why = this.notMirrored(method);

    const { target } = this;
    const forwardedFor = clientHeaders['x-forwarded-for']
      ? `${clientHeaders['x-forwarded-for']}, ${req.socket.remoteAddress}`
      : (req.socket.remoteAddress ?? '');
    const upstream = target.client.request({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method,
      agent: this.agent,
      setHost: false,
      path: target.prefix + url,
      headers: withHeaders(mirroredRawHeaders(forwarded, this.options.credentialMap, this.options.serve), {
        ...this.served.headers,
        'X-Forwarded-For': forwardedFor,
      }),
    });
    const copies = why
      ? undefined
      : {
          request: new BodyCopy(this.options.bodyLimit, this.budget),
          answer: new BodyCopy(this.options.answerLimit, this.budget),
        };
    const release = () => {
      copies?.request.release();
      copies?.answer.release();
    };
    // A request without a body (no Content-Length, no Transfer-Encoding: RFC 9112 §6.3) is sent at once, not piped.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      upstream.end();
      req.resume();
    } else {
      if (copies) req.on('data', copies.request.add);
      req.pipe(upstream);
    }

    // Each exchange is counted once: failed (the served host's fault), gone (the client's), or at the answer's end.
    let [failed, gone, ended] = [false, false, false];
    const fail = (status: number, message: string) => {
      if (failed || gone) return;
      failed = true;
      this.stats.servedFailed(endpoint);
      if (res.headersSent) res.destroy();
      else res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`shadow proxy: ${message}\n`);
    };
    const timer = setTimeout(() => {
      fail(504, `the ${this.options.serve} host did not answer within ${this.options.serveTimeoutMs} ms`);
      upstream.destroy();
    }, this.options.serveTimeoutMs);
    upstream.on('error', (error) => {
      clearTimeout(timer);
      fail(502, `the ${this.options.serve} host failed: ${error.message}`);
      release();
    });
    // A client that goes away ends the upstream exchange too: not the served host's failure, nothing to mirror.
    res.on('close', () => {
      clearTimeout(timer);
      if (res.writableFinished || failed || ended) return;
      gone = true;
      release();
      upstream.destroy();
      this.stats.skipped(endpoint, 'the client went away before the answer ended');
    });

    upstream.on('response', (answer) => {
      clearTimeout(timer);
      res.sendDate = false; // the host's own Date header, if it sent one; none added
      const answerHeaders = endToEnd(answer.rawHeaders);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
      if (copies) answer.on('data', copies.answer.add);
      answer.pipe(res);
      answer.on('end', () => {
        if (gone) return;
        ended = true;
        if (!copies) return this.count(endpoint, why!);
        const late = this.lateReason(
          copies.request.over
            ? 'request body over --body-limit'
            : copies.answer.over
              ? 'answer over --answer-limit'
              : '',
          copies.request.starved || copies.answer.starved,
        );
        if (late) {
          release();
          return this.count(endpoint, late);
        }
        const held = copies.request.size + copies.answer.size;
        const [body, bytes] = [copies.request.bytes(), copies.answer.bytes()];
        const ms = performance.now() - started;
        const served = { status: answer.statusCode ?? 0, rawHeaders: answerHeaders, bytes, ms };
        this.queue({ method, url, endpoint, headers: clientHeaders, secrets }, body, held, served);
      });
    });
  }

  /**
   * A mirror sink's request: nginx's `mirror` subrequest, the client's request without its answer. It is answered
   * `204` before anything else is done with it (or, with a body, as soon as the body has come): nginx does not read
   * the client's next request on that connection until its mirrors end, and keeps its connection to the sink only
   * for an answer without a body. The old host (or `--old2`) and the new service are asked afterwards, on the
   * mirror's thread, and compared. Nothing is forwarded but the caller's own request, its own credentials included.
   */
  private sink(req: IncomingMessage, res: ServerResponse): void {
    // nginx reuses its connection to the sink, and lets the client's connection go on, once it has this answer.
    const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    if (bodiless) res.writeHead(204).end();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const clientHeaders = headerRecord(endToEnd(req.rawHeaders));
    const secrets = requestSecrets(clientHeaders, url);
    const endpoint = this.endpointName(method, url, secrets);
    this.stats.served(endpoint);
    const why = this.notMirrored(method);
    const copy = why ? undefined : new BodyCopy(this.options.bodyLimit, this.budget);
    if (copy) req.on('data', copy.add);
    else req.resume();
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (!bodiless) res.writeHead(204).end();
      if (!copy) return this.count(endpoint, why!);
      const late = this.lateReason(copy.over ? 'request body over --body-limit' : '', copy.starved);
      if (late) {
        copy.release();
        return this.count(endpoint, late);
      }
      const held = copy.size;
      this.queue({ method, url, endpoint, headers: clientHeaders, secrets }, copy.bytes(), held);
    });
  }

  /** Why a copied exchange is not mirrored after all (a copy over its limit, budget or queue full), or undefined. */
  private lateReason(over: string, starved: boolean): NotMirrored | undefined {
    if (over) return { skipped: over };
    if (starved) return { dropped: 'copies over --memory-limit' };
    return this.pool.full ? { dropped: 'queue full' } : undefined;
  }

  /**
   * Queues a copied exchange as a mirror job (the served answer absent for a mirror sink). The copies' bytes, now in
   * the job's buffers, stay taken from the budget until its result comes.
   */
  private queue(
    request: Pick<MirrorJob, 'method' | 'url' | 'endpoint' | 'headers' | 'secrets'>,
    body: Uint8Array<ArrayBuffer>,
    held: number,
    served?: ServedAnswer,
  ): void {
    const host = request.headers.host;
    const id = this.nextId++;
    this.held.set(id, held);
    const job: MirrorJob = {
      id,
      method: request.method,
      url: request.url,
      endpoint: request.endpoint,
      headers: request.headers,
      ...(body.length ? { body } : {}),
      ...(served ? { served } : {}),
      bases: host ? [`http://${host}`, `https://${host}`] : [],
      secrets: request.secrets,
    };
    this.offer(job, served ? [body.buffer, served.bytes.buffer] : [body.buffer]);
  }

  /**
   * Hands a job to the mirror's queue through the circuit breaker; an open circuit drops it (counted). The bytes it
   * holds are given back when it is dropped, else with its result.
   */
  private offer(job: MirrorJob, transfer: ArrayBuffer[]): void {
    void this.breaker
      .send(job.id, () => {
        if (this.pool.offer(job, transfer)) this.pending.set(job.id, job.endpoint);
        else this.giveBack(job.id);
      })
      .then((sent) => {
        if (sent) return;
        this.giveBack(job.id);
        this.count(job.endpoint, { dropped: this.openReason });
      });
  }

  private giveBack(id: number): void {
    this.budget.give(this.held.get(id) ?? 0);
    this.held.delete(id);
  }

  private onMirrored(result: MirrorResult | MirrorFailure): void {
    this.giveBack(result.id);
    const endpoint = this.pending.get(result.id);
    this.pending.delete(result.id);
    const failed = 'failed' in result;
    this.breaker.settle(result.id, failed || result.mirroredFailed);
    if (failed) {
      if (endpoint) this.stats.mirrorFailed(endpoint);
      return;
    }
    this.stats.compared(result.outcome, { ...result.record, endpoint: endpoint ?? result.record.endpoint });
  }
}
