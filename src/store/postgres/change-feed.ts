/**
 * One dedicated PostgreSQL connection per instance that LISTENs on the ledger's change channel (change-log-sql.ts)
 * and on the API keys' one. Each notification, and each (re)connection (which may have missed some), calls its
 * handler: the instance then reads what it has not seen. While the connection is down (`connected` false) nothing
 * would tell the instance of a change, so it keeps nothing it could not re-check. A lost connection (server restart,
 * network) is re-opened after a growing pause (1 s .. 5 s). A connection that went half-open (a partition, a dropped
 * NAT entry: no error, no end, no notification ever again) is found by a heartbeat: a `SELECT 1` every HEARTBEAT_MS
 * that must answer within HEARTBEAT_TIMEOUT_MS, else the connection counts as lost (and TCP keepalive is on).
 */
import pg from 'pg';
import { API_KEYS_CHANNEL, CHANGE_CHANNEL } from './change-log-sql.ts';

/** How often the listening connection is asked to answer, and how long it may take. */
export const HEARTBEAT_MS = 5_000;
export const HEARTBEAT_TIMEOUT_MS = 5_000;

export class ChangeFeed {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private pause = 1_000;
  private closed = false;
  /** LISTENing: every change committed from now on is heard. */
  connected = false;

  constructor(
    private readonly connectionString: string,
    /** The seq a notification names, or undefined after a (re)connection. */
    private readonly onChange: (seq: number | undefined) => void,
    /** An API key was created or revoked, or the connection was lost or (re)made (some may have been missed). */
    private readonly onKeysChange: () => void,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: HEARTBEAT_MS,
    });
    this.client = client;
    let heartbeat: NodeJS.Timeout | undefined;
    const lost = () => {
      clearInterval(heartbeat);
      if (this.client !== client) return;
      this.client = undefined;
      this.connected = false;
      this.onKeysChange();
      void client.end().catch(() => undefined);
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel === API_KEYS_CHANNEL) return this.onKeysChange();
      if (message.channel !== CHANGE_CHANNEL) return;
      const seq = Number(message.payload);
      this.onChange(Number.isSafeInteger(seq) ? seq : undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}; LISTEN ${API_KEYS_CHANNEL}`);
    } catch {
      lost();
      return;
    }
    if (this.closed) return void client.end().catch(() => undefined);
    this.pause = 1_000;
    // One heartbeat at a time: the connection answers `SELECT 1` in time, or it is lost (a half-open one never does).
    let beating = false;
    heartbeat = setInterval(() => {
      if (beating) return;
      beating = true;
      const late = setTimeout(lost, HEARTBEAT_TIMEOUT_MS);
      late.unref();
      client.query('SELECT 1').then(
        () => {
          clearTimeout(late);
          beating = false;
        },
        () => {
          clearTimeout(late);
          lost();
        },
      );
    }, HEARTBEAT_MS);
    heartbeat.unref();
    this.connected = true;
    this.onKeysChange();
    this.onChange(undefined);
  }

  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, this.pause);
    this.retry.unref();
    this.pause = Math.min(this.pause * 2, 5_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
