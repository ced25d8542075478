/**
 * Real nginx (Debian's) for tests and benchmarks, running the shipped site deploy/nginx/reporting-service.conf with
 * only its ports and paths replaced (each replacement must match exactly once, so the file and the tests cannot
 * drift apart). nginx runs in the foreground as a child process (daemon off) with a throwaway prefix: pid, logs,
 * temp paths and a self-signed certificate (openssl) in a temp dir. stop() ends it (SIGQUIT, graceful) and deletes it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './server-process.ts';

const run = promisify(execFile);
export const NGINX_BIN = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
export const SITE_FILE = path.join(REPO_ROOT, 'deploy/nginx/reporting-service.conf');
/** The shadow phase's site: the old host serves, a sample is mirrored to `npm run shadow -- --mirror-sink`. */
export const SHADOW_SITE_FILE = path.join(REPO_ROOT, 'deploy/nginx/reporting-service-shadow.conf');

export interface SitePorts {
  /** The plain-HTTP listener (the shipped `listen 80`, redirecting to HTTPS). */
  http: number;
  /** The TLS listener (the shipped `listen 443 ssl`). */
  https: number;
  /** The two upstream instances (the shipped 8080 and 8081); the same port twice for one instance. */
  upstreams: [number, number];
}

export interface RunningNginx {
  dir: string;
  /** The certificate nginx serves (CN localhost, SAN 127.0.0.1), for clients to trust. */
  certificate: string;
  httpsUrl: string;
  httpUrl: string;
  stop(): Promise<void>;
}

function replaceOnce(text: string, from: string, to: string, file = SITE_FILE): string {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`${file}: expected "${from}" once, found it ${count} times`);
  return text.replace(from, to);
}

/** A shipped site's listeners, server names and certificate paths for a test (both server blocks: its address). */
function localSite(file: string, ports: { http: number; https: number }, certificate: string, key: string): string {
  let site = readFileSync(file, 'utf8');
  site = replaceOnce(site, 'listen 80;', `listen 127.0.0.1:${ports.http};`, file);
  site = replaceOnce(site, 'listen 443 ssl;', `listen 127.0.0.1:${ports.https} ssl;`, file);
  if (site.split('server_name reports.example.com;').length - 1 !== 2)
    throw new Error(`${file}: expected server_name reports.example.com twice`);
  site = site.replaceAll('server_name reports.example.com;', 'server_name 127.0.0.1;');
  site = replaceOnce(site, '/etc/ssl/certs/reports.example.com.pem', certificate, file);
  return replaceOnce(site, '/etc/ssl/private/reports.example.com.key', key, file);
}

/** The shipped site with test ports and certificate paths. */
export function siteFromDeploy(ports: SitePorts, certificate: string, key: string): string {
  let site = localSite(SITE_FILE, ports, certificate, key);
  site = replaceOnce(site, 'server 127.0.0.1:8080 ', `server 127.0.0.1:${ports.upstreams[0]} `);
  return replaceOnce(site, 'server 127.0.0.1:8081 ', `server 127.0.0.1:${ports.upstreams[1]} `);
}

export interface ShadowSitePorts {
  http: number;
  https: number;
  /** The old host (the shipped 8090). */
  legacy: number;
  /** The mirror sink (the shipped 9091). */
  sink: number;
  /** The sample mirrored, in place of the shipped `10%` (`100%`: every request); absent: as shipped. */
  sample?: string;
  /** No sample drawn, no mirror (the rewrite to the sampled location left out): nginx straight to the old host. */
  noMirror?: boolean;
}

/** The shadow site's step into its sampled (mirroring) location. */
const SAMPLED_REWRITE = [
  '        if ($reporting_shadow_sampled) {',
  '            rewrite ^ /_reporting_sampled last;',
  '        }',
  '',
].join('\n');

/** The shadow phase's shipped site with test ports and certificate paths. */
export function shadowSiteFromDeploy(ports: ShadowSitePorts, certificate: string, key: string): string {
  const file = SHADOW_SITE_FILE;
  let site = localSite(file, ports, certificate, key);
  site = replaceOnce(site, 'server 127.0.0.1:8090;', `server 127.0.0.1:${ports.legacy};`, file);
  site = replaceOnce(site, 'server 127.0.0.1:9091;', `server 127.0.0.1:${ports.sink};`, file);
  if (ports.sample) site = replaceOnce(site, '    10%     "1";', `    ${ports.sample}     "1";`, file);
  if (ports.noMirror) site = replaceOnce(site, SAMPLED_REWRITE, '', file);
  return site;
}

function waitForPort(port: number, child: ChildProcess, log: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`nginx exited ${child.exitCode}:\n${log()}`));
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > until) reject(new Error(`nginx did not listen on ${port}:\n${log()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export function startNginx(ports: SitePorts): Promise<RunningNginx> {
  return startNginxSite(ports, (certificate, key) => siteFromDeploy(ports, certificate, key));
}

/** The shadow phase's site (deploy/nginx/reporting-service-shadow.conf) in front of an old host and a mirror sink. */
export function startShadowNginx(ports: ShadowSitePorts): Promise<RunningNginx> {
  return startNginxSite(ports, (certificate, key) => shadowSiteFromDeploy(ports, certificate, key));
}

async function startNginxSite(
  ports: { http: number; https: number },
  siteOf: (certificate: string, key: string) => string,
): Promise<RunningNginx> {
  if (!existsSync(NGINX_BIN))
    throw new Error(`nginx not found at ${NGINX_BIN}: apt-get install nginx (scripts/ensure-system-packages.sh)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'rs-nginx-'));
  const certificate = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    certificate,
  ]);
  writeFileSync(path.join(dir, 'site.conf'), siteOf(certificate, key));
  // The main context a distribution's nginx.conf would give, pointed at the temp dir; the site is included as is.
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'master_process on;',
      'worker_processes auto;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 4096; }',
      'http {',
      // Each line ends with the URI nginx ended on ($uri): a rewrite's target, such as the shadow site's sample.
      `  log_format located '$remote_addr [$time_local] "$request" $status $body_bytes_sent $uri';`,
      `  access_log ${dir}/access.log located;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`),
      `  include ${dir}/site.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(NGINX_BIN, ['-p', `${dir}/`, '-c', `${dir}/nginx.conf`, '-e', `${dir}/error.log`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const log = () => out + (existsSync(`${dir}/error.log`) ? readFileSync(`${dir}/error.log`, 'utf8') : '');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(ports.https, child, log);
    await waitForPort(ports.http, child, log);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    certificate: readFileSync(certificate, 'utf8'),
    httpsUrl: `https://127.0.0.1:${ports.https}`,
    httpUrl: `http://127.0.0.1:${ports.http}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
