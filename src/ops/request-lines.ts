/** The lines a client of the key administration socket sends (key-admin-socket.ts), read one at a time, bounded. */
import type { Socket } from 'node:net';

/** Longest request line read, in bytes (a create names a few companies); a longer one closes the connection. */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * One connection's lines, read one at a time (a request, then an answer to the server's question), each within
 * `withinMs` of being awaited (the socket is closed past it) and at most MAX_REQUEST_BYTES long.
 */
export function lineReader(socket: Socket): (withinMs: number) => Promise<string> {
  let buffered = '';
  let waiting: ((line: string) => void) | undefined;
  const deliver = () => {
    const end = buffered.indexOf('\n');
    if (end === -1 || !waiting) return;
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    const resolve = waiting;
    waiting = undefined;
    resolve(line);
  };
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (Buffer.byteLength(buffered) > MAX_REQUEST_BYTES) return void socket.destroy();
    deliver();
  });
  return (withinMs) =>
    new Promise<string>((resolve, reject) => {
      const late = setTimeout(() => socket.destroy(), withinMs);
      waiting = (line) => {
        clearTimeout(late);
        resolve(line);
      };
      socket.once('close', () => {
        clearTimeout(late);
        reject(new Error('the client went away'));
      });
      deliver();
    });
}
