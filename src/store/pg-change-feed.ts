/**
 * One dedicated PostgreSQL connection per instance that LISTENs on the change channel (change-log-sql.ts). Each
 * notification, and each (re)connection (which may have missed some), calls `onChange`: the instance then reads what
 * it has not seen. A lost connection (server restart, network) is re-opened after a growing pause (1 s .. 5 s).
 */
import pg from 'pg';
import { CHANGE_CHANNEL } from './change-log-sql.ts';

export class ChangeFeed {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private pause = 1_000;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    /** The seq a notification names, or undefined after a (re)connection. */
    private readonly onChange: (seq: number | undefined) => void,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5_000 });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      const seq = Number(message.payload);
      this.onChange(Number.isSafeInteger(seq) ? seq : undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch {
      lost();
      return;
    }
    if (this.closed) return void client.end().catch(() => undefined);
    this.pause = 1_000;
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
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
