/**
 * Red team round 4 (issue 36), finding 6: when the LISTEN connection of a PostgreSQL instance went half-open (a
 * partition, a dropped NAT entry: no error, no end), the instance heard no revocation and no import again, and
 * accepted a revoked key for minutes. Here the production process reaches a real PostgreSQL through a TCP relay that,
 * on command, silently drops every byte of the listening connection (found by its LISTEN), as a dead path does; the
 * key is revoked with the compiled keys CLI straight on the database. The feed's heartbeat finds the connection dead,
 * the instance forgets the keys it held and listens again: the revoked key is refused.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import {
  ensureProductionBuild,
  productionEnv,
  REPO_ROOT,
  startProductionServer,
  type ServerProcess,
} from '../../../scripts/lib/server-process.ts';

const run = promisify(execFile);

/** A TCP relay to PostgreSQL whose listening connections can be made half-open (bytes dropped both ways). */
function halfOpenRelay(target: number): Promise<{ port: number; freezeListeners(): number; close(): void }> {
  const listeners = new Set<{ frozen: boolean }>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const state = { frozen: false };
    const upstream = createConnection(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('LISTEN ')) listeners.add(state);
      if (!state.frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!state.frozen) client.write(chunk);
    });
    client.on('end', () => state.frozen || upstream.end());
    upstream.on('end', () => state.frozen || client.end());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        freezeListeners: () => {
          for (const l of listeners) l.frozen = true;
          return listeners.size;
        },
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

describe('a half-open LISTEN connection (issue 36, finding 6)', function () {
  this.timeout(240_000);
  let pg: PostgresServer;
  let relay: Awaited<ReturnType<typeof halfOpenRelay>>;
  let server: ServerProcess;
  before(async function () {
    if (skipPostgres) this.skip();
    await ensureProductionBuild();
    pg = await startPostgresServer('half_open');
    relay = await halfOpenRelay(pg.port);
    server = await startProductionServer({
      DATABASE_URL: pg.url.replace(`:${pg.port}/`, `:${relay.port}/`),
      DEMO_DATA: '1',
      LOG_LEVEL: 'warn',
    });
    await server.waitForOutput(/Demo API key/);
  });
  after(async () => {
    await server?.kill();
    relay?.close();
    await pg?.destroy();
  });

  it(
    'a key revoked while the instance cannot hear it is refused once the heartbeat finds the connection ' + 'dead',
    async () => {
      const keys = (...args: string[]) =>
        run(process.execPath, ['dist/scripts/keys.js', ...args], {
          cwd: REPO_ROOT,
          env: productionEnv({ DATABASE_URL: pg.url }),
        });
      const created = await keys('create', '--company', '1', '--name', 'half-open');
      const key = /key \(shown once, stored hashed\): (rsk_\S+)/.exec(created.stdout)![1]!;
      const id = /^(\d+)\thalf-open\t/m.exec((await keys('list')).stdout)![1]!;
      const report = `${server.url}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1`;
      const status = async () => (await fetch(report, { headers: { 'X-ApiKey': key } })).status;
      // Accepted, and held by the instance: it trusts its feed to hear the revocation.
      expect(await status()).to.equal(200);
      expect(await status()).to.equal(200);

      expect(relay.freezeListeners(), 'listening connections made half-open').to.be.at.least(1);
      expect((await keys('revoke', id)).stdout).to.contain(`revoked key ${id}`);
      // The instance may answer from what it held until the heartbeat gives up on the connection (seconds); it must
      // then refuse the key. Before, it kept accepting it for minutes.
      let last = 200;
      for (let tries = 0; tries < 120 && last === 200; tries++) {
        await new Promise((r) => setTimeout(r, 500));
        last = await status();
      }
      expect(last, 'the revoked key, within a minute of the revocation').to.equal(401);
      expect(await status()).to.equal(401);
    },
  );
});
