/** A client of a running server's keys.sock, as the keys and import CLIs talk to it: one JSON line each way. */
import { createConnection } from 'node:net';

export function askKeySocket(socketPath: string, message: unknown): Promise<{ ok?: unknown; error?: string }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let reply = '';
    socket
      .setEncoding('utf8')
      .on('data', (d: string) => (reply += d))
      .on('error', reject)
      .on('end', () => resolve(JSON.parse(reply) as { ok?: unknown; error?: string }));
    socket.write(`${JSON.stringify(message)}\n`);
  });
}
