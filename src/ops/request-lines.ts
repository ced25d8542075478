/** The lines a client of the key administration socket sends (key-admin-socket.ts), read one at a time, bounded. */
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';

/** Longest request line read, in bytes (a create names a few companies); a longer one closes the connection. */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The socket's bytes, the connection closed as soon as more than MAX_REQUEST_BYTES follow the last newline: readline
 * keeps an unended line whole, so an endless one is cut here before it reaches readline's buffer.
 */
function boundedLines(socket: Socket): Transform {
  let sinceNewline = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const newline = chunk.lastIndexOf(0x0a);
      sinceNewline = newline === -1 ? sinceNewline + chunk.length : chunk.length - newline - 1;
      if (socket.destroyed || sinceNewline > MAX_REQUEST_BYTES) {
        socket.destroy();
        return done();
      }
      done(null, chunk);
    },
  });
  return socket.pipe(bounded);
}

/**
 * One connection's lines (split by node:readline), read one at a time (a request, then an answer to the server's
 * question), each within `withinMs` of being awaited (the socket is closed past it) and at most MAX_REQUEST_BYTES long.
 * While a line waits unread the socket is paused, so a client cannot queue lines.
 */
export function lineReader(socket: Socket): (withinMs: number) => Promise<string> {
  const lines = createInterface({ input: boundedLines(socket), crlfDelay: Number.POSITIVE_INFINITY });
  const unread: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  lines.on('line', (line) => {
    if (socket.destroyed) return; // the lines after one that closed the connection are not read
    if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) return void socket.destroy();
    unread.push(line);
    lines.pause();
    deliver();
  });
  socket.once('close', () => lines.close());
  function deliver(): void {
    if (!waiting || !unread.length) return;
    const resolve = waiting;
    waiting = undefined;
    resolve(unread.shift() as string);
    if (!unread.length) lines.resume();
  }
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
