/**
 * The shadow bench's floor (`node scripts/bench/bare-proxy.mjs <target> [port]`): the least a node:http reverse proxy
 * does — one keep-alive agent, the request piped up, the answer's status and headers written and its body piped
 * back — with no mirroring, statistics or header work. What it costs is what any proxy written on node:http costs
 * on the same machine in the same run, so the shadow proxy's figures can be read against it.
 */
import http from 'node:http';

const target = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, scheduling: 'lifo' });

const server = http.createServer((req, res) => {
  const upstream = http.request({
    hostname: target.hostname,
    port: target.port,
    method: req.method,
    path: req.url,
    headers: req.headers,
    agent,
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
