/** The benchmarks' waits on the processes they start are bounded: a first message, an exit, or a time-out. */
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { firstMessage, stop } from '../../../scripts/bench/spawn-server.ts';

/** A node process running `code`, with an IPC channel to this one. */
const node = (code: string): ChildProcess =>
  spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });

describe('bench: waiting on a started process', () => {
  it('firstMessage gives the first message the process sends', async () => {
    const child = node("process.send({ url: 'http://x' }); process.on('message', () => process.exit(0));");
    expect(await firstMessage(child, 'the child', 30_000)).to.deep.equal({ url: 'http://x' });
    await stop(child, () => child.send('stop'));
    expect(child.exitCode).to.equal(0);
  });

  it('firstMessage rejects, naming the process, when it exits first', async () => {
    const child = node('process.exit(3)');
    const error = await firstMessage(child, 'the child', 30_000).catch((e: Error) => e);
    expect(String(error)).to.match(/the child exited \(3\) before it answered/);
  });

  it('firstMessage rejects and kills the process when it sends nothing in time', async () => {
    const child = node('setInterval(() => {}, 1000)');
    const error = await firstMessage(child, 'the child', 300).catch((e: Error) => e);
    expect(String(error)).to.match(/the child did not answer within 300 ms/);
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    expect(child.signalCode).to.equal('SIGKILL');
  });
});
