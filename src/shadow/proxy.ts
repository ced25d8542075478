/**
 * The shadow proxy (node:http, streaming): every client request goes to the served host (old, or new after the
 * switch) with its headers as sent (Host included, so the host answers as it did without the proxy; hop-by-hop
 * headers dropped, X-Forwarded-For appended, the served host's own headers set), and the answer streams back as it
 * comes: status, headers and body bytes unchanged. A copy of the request body (up to --body-limit) and of the answer
 * (up to the answer limit) is kept meanwhile; when the answer has ended, the exchange is offered to the mirror's
 * bounded queue (mirror-pool.ts), which mirrors and compares it on its own thread, so no client ever waits for the
 * mirror. The live page and its JSON are served at reserved paths (or on a port of their own).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { redactApiKey } from '../auth/api-keys.ts';
import { endpointOf } from '../compare/endpoint.ts';
import { captureAnswer } from './capture.ts';
import { endToEnd, headerRecord, withHeaders } from './hop-headers.ts';
import type { MirrorFailure } from './mirror-pool.ts';
import { MirrorPool } from './mirror-pool.ts';
import type { MirrorResult } from './mirror.ts';
import { JSON_PATH, PAGE_PATH, type ShadowOptions } from './options.ts';
import { PAGE_CSP, renderShadowPage } from './page.ts';
import { redactText, requestSecrets } from './redact.ts';
import { ShadowStats } from './stats.ts';

const SAFE = new Set(['GET', 'HEAD']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Appends to a body copy until `limit` bytes; past it the copy is dropped and marked over. */
class BodyCopy {
  private chunks: Buffer[] = [];
  private size = 0;
  over = false;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (this.over) return;
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks = [];
    } else this.chunks.push(chunk);
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export class ShadowProxy {
  readonly stats: ShadowStats;
  private readonly pool: MirrorPool;
  private readonly agent: http.Agent;
  private readonly served;
  private readonly pending = new Map<number, string>();
  private nextId = 1;

  constructor(private readonly options: ShadowOptions, private readonly pageOnProxy: boolean) {
    this.served = options.serve === 'old' ? options.old : options.new;
    const target = new URL(this.served.base);
    this.agent = new (target.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 512 });
    const hostSecrets = [options.old, options.old2, options.new].flatMap((h) => (h ? requestSecrets(h.headers, '') : []));
    this.pool = new MirrorPool(
      { old: options.old, old2: options.old2, new: options.new, serve: options.serve, rules: options.rules, timeoutMs: options.timeoutMs, concurrency: options.concurrency, hostSecrets, maxBodyChars: 200_000 },
      options.queueLimit,
      (result) => this.onMirrored(result),
    );
    const shown = (base: string) => redactApiKey(base);
    this.stats = new ShadowStats({
      serving: options.serve,
      hosts: { old: shown(options.old.base), old2: shown((options.old2 ?? options.old).base), new: shown(options.new.base) },
      keep: options.keep, queueLimit: options.queueLimit, concurrency: options.concurrency, queued: () => this.pool.queued,
    });
  }

  /** The proxy's request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.pageOnProxy && this.servePage(req, res)) return;
    this.proxy(req, res);
  };

  /** The listener of the page's own port: the page, its JSON, else 404. */
  readonly handlePage = (req: IncomingMessage, res: ServerResponse): void => {
    if (!this.servePage(req, res)) res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the page is ${PAGE_PATH}, its JSON ${JSON_PATH}\n`);
  };

  async close(): Promise<void> {
    this.agent.destroy();
    await this.pool.close();
  }

  private servePage(req: IncomingMessage, res: ServerResponse): boolean {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PAGE_PATH && path !== JSON_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end(`${req.method} is not allowed on ${path}\n`);
      return true;
    }
    const snapshot = this.stats.snapshot();
    const [type, body] = path === PAGE_PATH ? ['text/html; charset=utf-8', renderShadowPage(snapshot)] : ['application/json; charset=utf-8', `${JSON.stringify(snapshot, null, 2)}\n`];
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }

  private endpointName(method: string, url: string, secrets: string[]): string {
    let name: string;
    try {
      name = endpointOf(method, url);
    } catch {
      name = `${method} ${url.split('?')[0]}`;
    }
    return redactText(redactApiKey(name), secrets);
  }

  private proxy(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const clientHeaders = headerRecord(endToEnd(req.rawHeaders));
    const secrets = requestSecrets(clientHeaders, url);
    const endpoint = this.endpointName(method, url, secrets);
    this.stats.served(endpoint);

    const target = new URL(this.served.base);
    const forwardedFor = [clientHeaders['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = (target.protocol === 'https:' ? https : http).request({
      protocol: target.protocol, hostname: target.hostname, port: target.port, method, agent: this.agent, setHost: false,
      path: target.pathname.replace(/\/+$/, '') + url,
      headers: withHeaders(endToEnd(req.rawHeaders), { ...this.served.headers, 'X-Forwarded-For': forwardedFor }),
    });
    const requestBody = new BodyCopy(this.options.bodyLimit);
    // A request without a body (no Content-Length, no Transfer-Encoding: RFC 9112 §6.3) is sent at once, not piped.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      upstream.end();
      req.resume();
    } else {
      req.on('data', (chunk: Buffer) => requestBody.add(chunk));
      req.pipe(upstream);
    }

    let failed = false;
    const fail = (status: number, message: string) => {
      if (failed) return;
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
    });
    // A client that goes away ends the upstream exchange too.
    res.on('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) upstream.destroy();
    });

    upstream.on('response', (answer) => {
      clearTimeout(timer);
      res.sendDate = false; // the host's own Date header, if it sent one; none added
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      const answerBody = new BodyCopy(this.options.answerLimit);
      answer.on('data', (chunk: Buffer) => answerBody.add(chunk));
      answer.pipe(res);
      answer.on('end', () => {
        const ms = performance.now() - started;
        const why = this.notMirrored(method, requestBody, answerBody);
        if (why) return this.stats.skipped(endpoint, why);
        const host = clientHeaders.host;
        const bases = host ? [`http://${host}`, `https://${host}`] : [];
        const id = this.nextId++;
        const body = requestBody.bytes();
        const offered = this.pool.offer({
          id, method, url, endpoint, headers: clientHeaders, ...(body.length ? { body: body.toString('utf8') } : {}),
          served: captureAnswer(answer.statusCode ?? 0, headerRecord(endToEnd(answer.rawHeaders)), answerBody.bytes(), [this.served.base, ...bases], ms),
          bases, secrets,
        });
        if (offered) this.pending.set(id, endpoint);
        else this.stats.dropped(endpoint);
      });
    });
  }

  /** Why an exchange is not mirrored (method, sample, sizes, a body that is not text), or undefined. */
  private notMirrored(method: string, requestBody: BodyCopy, answerBody: BodyCopy): string | undefined {
    if (!SAFE.has(method) && !(method === 'POST' && this.options.allowPost)) return method === 'POST' ? 'POST without --allow-post' : `${method} is never mirrored`;
    if (this.options.sample < 1 && Math.random() >= this.options.sample) return 'not in the --sample';
    if (requestBody.over) return 'request body over --body-limit';
    if (answerBody.over) return 'answer over --answer-limit';
    try {
      utf8.decode(requestBody.bytes());
    } catch {
      return 'request body not UTF-8 text';
    }
    return undefined;
  }

  private onMirrored(result: MirrorResult | MirrorFailure): void {
    const endpoint = this.pending.get(result.id);
    this.pending.delete(result.id);
    if ('failed' in result) {
      if (endpoint) this.stats.mirrorFailed(endpoint);
      return;
    }
    this.stats.compared(result.outcome, { ...result.record, endpoint: endpoint ?? result.record.endpoint });
  }
}
