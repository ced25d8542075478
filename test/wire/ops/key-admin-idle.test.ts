/**
 * keys.sock holds no connection for ever: a client that connects and says nothing, sends half a request and stalls,
 * or keeps the connection open once answered is closed by the server after the idle bound, and an import whose
 * question is not answered in time is closed with nothing written; a request line longer than 64 KiB in bytes
 * (multi-byte characters counted as such) is closed unanswered, and so is one that never ends (cut as its 64 KiB
 * pass, not held whole until a newline), with the lines sent after it not run.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyAdminOf, listenKeyAdmin } from '../../../src/ops/key-admin-socket.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { LedgerStore } from '../../../src/store/ledger/ledger-store.ts';
import { RANDOM_COMPANY, randomLedger } from '../../support/random-store-ledger.ts';

const IDLE_MS = 300;
const MAX_REQUEST_BYTES = 64 * 1024;

/** A serviceUrl request line of exactly `bytes` bytes in UTF-8 (its newline not counted), padded with '€'s. */
function serviceUrlRequestOf(bytes: number): string {
  const bare = (pad: string) => JSON.stringify({ op: 'serviceUrl', args: [], pad });
  const euros = Math.floor((bytes - Buffer.byteLength(bare(''))) / 3);
  const line = bare('€'.repeat(euros) + 'x'.repeat(bytes - Buffer.byteLength(bare('€'.repeat(euros)))));
  expect(Buffer.byteLength(line)).to.equal(bytes);
  return line;
}

/** A client connection and what it received until the server closed it. */
function connect(path: string, allowHalfOpen = false): { socket: Socket; closed: Promise<string> } {
  const socket = createConnection({ path, allowHalfOpen });
  let received = '';
  socket.setEncoding('utf8').on('data', (d: string) => void (received += d));
  socket.on('error', () => undefined);
  return {
    socket,
    closed: new Promise((resolve) => socket.on(allowHalfOpen ? 'end' : 'close', () => resolve(received))),
  };
}

/** Resolves once the server holds no connection (checked as it goes: the test's own time-out is the failure). */
async function noConnectionLeft(server: Server): Promise<void> {
  for (;;) {
    const count = await new Promise<number>((resolve, reject) =>
      server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );
    if (count === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** keys.sock over a private in-memory store, started by `listen` before the describe block's tests, stopped after. */
function keysSocket(prefix: string, listen: (path: string, store: LedgerStore) => Promise<Server>) {
  const at = {} as { dir: string; path: string; store: LedgerStore; server: Server };
  before(async () => {
    at.dir = mkdtempSync(join(tmpdir(), prefix));
    at.path = join(at.dir, 'keys.sock');
    at.store = await openStore({ dataDir: at.dir, duckdbPath: ':memory:' });
    at.server = await listen(at.path, at.store);
  });
  after(async () => {
    await new Promise((resolve) => at.server.close(resolve));
    await at.store.close();
    rmSync(at.dir, { recursive: true, force: true });
  });
  return at;
}

describe('keys.sock closes idle connections', function () {
  this.timeout(10_000);
  const at = keysSocket('rs-keys-idle-', async (path, store) => {
    await store.load(randomLedger(11, 5));
    return listenKeyAdmin(path, store, () => 'http://127.0.0.1:1/', { idleMs: IDLE_MS, questionMs: IDLE_MS });
  });

  it('When a client connects and sends nothing, then the server closes the connection', async () => {
    const { closed } = connect(at.path);
    expect(await closed).to.equal('');
  });

  it('When a client sends half a request and stalls, then the server closes the connection unanswered', async () => {
    const { socket, closed } = connect(at.path);
    socket.write('{"op": "serviceUrl", ');
    expect(await closed).to.equal('');
  });

  it('When a client keeps the connection open after its answer, then the server closes it', async () => {
    const { socket, closed } = connect(at.path, true);
    socket.write(`${JSON.stringify({ op: 'serviceUrl', args: [] })}\n`);
    expect(JSON.parse(await closed)).to.deep.equal({ ok: 'http://127.0.0.1:1/' });
    expect(socket.writable).to.equal(true); // the client never ends its side
    await noConnectionLeft(at.server);
    socket.destroy();
  });

  it('When a request line passes 64 KiB in bytes (fewer characters), then it is closed unanswered', async () => {
    const { socket, closed } = connect(at.path);
    // 66,000 bytes in 22,000 characters, the line ended: it is not read, whether or not it would be answered.
    socket.write(`{"op": "listCompanies", "args": ["${'€'.repeat(22_000)}"]}\n`);
    expect(await closed).to.equal('');
  });

  it('When a request line is 64 KiB in bytes, then it is answered; a byte more, and it is closed', async () => {
    const atLimit = connect(at.path);
    atLimit.socket.write(`${serviceUrlRequestOf(MAX_REQUEST_BYTES)}\n`);
    expect(JSON.parse(await atLimit.closed)).to.deep.equal({ ok: 'http://127.0.0.1:1/' });
    const past = connect(at.path);
    past.socket.write(`${serviceUrlRequestOf(MAX_REQUEST_BYTES + 1)}\n`);
    expect(await past.closed).to.equal('');
  });

  it('When a line of 64 KiB comes in two writes, its newline last, then it is answered', async () => {
    const { socket, closed } = connect(at.path);
    socket.write(serviceUrlRequestOf(MAX_REQUEST_BYTES));
    setTimeout(() => socket.write('\n'), 20);
    expect(JSON.parse(await closed)).to.deep.equal({ ok: 'http://127.0.0.1:1/' });
  });

  it('When an over-long line is followed by a request in the same write, then neither is run', async () => {
    const { record } = await keyAdminOf(at.store).issueApiKey({ name: 'kept', companyIds: [RANDOM_COMPANY] });
    const { socket, closed } = connect(at.path);
    const revoke = JSON.stringify({ op: 'revokeApiKey', args: [record.id] });
    socket.write(`${serviceUrlRequestOf(MAX_REQUEST_BYTES + 1)}\n${revoke}\n`);
    expect(await closed).to.equal('');
    // The store's writes run in order: once this one is done, a revocation the connection started would be too.
    await keyAdminOf(at.store).issueApiKey({ name: 'after', companyIds: [RANDOM_COMPANY] });
    const kept = (await at.store.listApiKeys()).find((key) => key.id === record.id);
    expect(kept?.revokedAt).to.equal(null);
  });

  it('When an import asks to confirm its changes and no answer comes, then it is closed, nothing written', async () => {
    const journal = join(at.dir, 'journal.csv');
    writeFileSync(
      journal,
      'entry,date,location,account,amount,options,memo,posted\n' +
        'N1,2030-01-05,71,1000,10.00,,,true\nN1,2030-01-05,71,4000,-10.00,,,true\n',
    );
    const before = await at.store.pnlSpan(RANDOM_COMPANY);
    const { socket, closed } = connect(at.path);
    socket.write(`${JSON.stringify({ op: 'importCsv', args: [{ journal, companyId: RANDOM_COMPANY, ask: true }] })}\n`);
    const said = (await closed)
      .trim()
      .split('\n')
      .map((line) => Object.keys(JSON.parse(line) as object)[0]);
    expect(said).to.include('confirm'); // asked, then closed unanswered: no {"ok"} or {"error"} line
    expect(said).to.not.include('ok');
    expect(await at.store.pnlSpan(RANDOM_COMPANY)).to.deep.equal(before);
  });
});

describe('keys.sock cuts a line that never ends at 64 KiB', function () {
  this.timeout(10_000);
  // The idle bound is far past the test's time-out: only the byte bound can close the connection in time.
  const at = keysSocket('rs-keys-long-', (path, store) =>
    listenKeyAdmin(path, store, () => undefined, { idleMs: 10 * 60_000 }),
  );

  it('When a client sends more than 64 KiB without a newline, then it is closed unanswered', async () => {
    const { socket, closed } = connect(at.path);
    socket.write(serviceUrlRequestOf(MAX_REQUEST_BYTES).slice(0, -1));
    setTimeout(() => socket.write('€'), 20); // past the bound only with its last bytes
    expect(await closed).to.equal('');
    await noConnectionLeft(at.server);
  });
});
