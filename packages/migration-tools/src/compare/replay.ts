/** Sends one request to one host (time-out on every request) and captures what a client would read. */
import { capturedBody } from './captured-body.ts';
import type { Captured, ReplayRequest } from './types.ts';

export interface HostConfig {
  /** Base URL, e.g. `http://old-host:8080` or `https://host/prefix`. */
  base: string;
  /** Headers sent on every request to this host (`--old-header`, `--new-header`), over the request's own. */
  headers: Record<string, string>;
}

/** Headers a replay must not copy from a capture: they describe the captured connection, not the request. */
const CONNECTION_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
]);
/** Left out of anonymous requests (401 rules, anonymous calls of public operations). */
const CREDENTIAL_HEADERS = new Set(['x-apikey', 'authorization', 'cookie']);

export function requestHeaders(request: ReplayRequest, host: HostConfig): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: string) => {
    const lower = name.toLowerCase();
    if (name.startsWith(':') || CONNECTION_HEADERS.has(lower)) return;
    if (request.anonymous && CREDENTIAL_HEADERS.has(lower)) return;
    for (const existing of Object.keys(out)) if (existing.toLowerCase() === lower) delete out[existing];
    out[name] = value;
  };
  for (const [name, value] of Object.entries(request.headers)) put(name, value);
  for (const [name, value] of Object.entries(host.headers)) put(name, value);
  return out;
}

/**
 * Each base URL (an origin, maybe with a path) as it appears in a host's answers, plain and with JSON's escaped
 * slashes, replaced by `{host}` so two hosts compare.
 */
function rebase(text: string, bases: readonly string[]): string {
  let out = text;
  for (const base of bases) {
    const plain = base.replace(/\/+$/, '');
    out = out.split(plain).join('{host}').split(plain.replace(/\//g, '\\/')).join('{host}');
  }
  return out;
}

/** A captured answer with its headers and text body rebased. */
export function rebaseCaptured(captured: Captured, bases: readonly string[]): Captured {
  const headers = Object.fromEntries(
    Object.entries(captured.headers).map(([name, value]) => [name, rebase(value, bases)]),
  );
  return { ...captured, headers, body: captured.binary ? captured.body : rebase(captured.body, bases) };
}

export async function replay(request: ReplayRequest, host: HostConfig, timeoutMs: number): Promise<Captured> {
  const started = performance.now();
  try {
    const res = await fetch(host.base.replace(/\/+$/, '') + request.url, {
      method: request.method,
      headers: requestHeaders(request, host),
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    return rebaseCaptured(
      { status: res.status, headers, ...capturedBody(bytes, headers['content-type']), ms: performance.now() - started },
      [host.base],
    );
  } catch (error) {
    const e = error as Error;
    const reason =
      e.name === 'TimeoutError'
        ? `time-out after ${timeoutMs} ms`
        : `${e.message}${(e.cause as Error | undefined)?.message ? `: ${(e.cause as Error).message}` : ''}`;
    return { status: 0, headers: {}, body: '', error: reason, ms: performance.now() - started };
  }
}
