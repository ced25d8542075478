/**
 * The bounded queue in front of the mirror's thread: a job is offered when the served answer has ended; when
 * `queueLimit` jobs are already waiting or in flight it is dropped (the caller counts it) and the client never waits
 * for the mirror either way. Jobs offered in one turn of the event loop go over in one message, their body bytes
 * transferred (moved, not copied); results come back batched too. The thread runs the TypeScript sources through
 * tsx's API when the proxy does (npm run shadow), the compiled file otherwise.
 */
import { Worker } from 'node:worker_threads';
import type { MirrorConfig, MirrorJob, MirrorResult } from './mirror.ts';

export interface MirrorFailure {
  id: number;
  failed: string;
}

function startWorker(config: MirrorConfig): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSources ? './mirror-worker.ts' : './mirror-worker.js', import.meta.url);
  if (!fromSources) return new Worker(entry, { workerData: config });
  // A worker does not inherit tsx's loader (Node 20): register it there before importing the TypeScript entry.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot =
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); ` +
    `});`;
  return new Worker(boot, { eval: true, workerData: config });
}

export class MirrorPool {
  private worker: Worker;
  private readonly waiting = new Set<number>();
  private batch: MirrorJob[] = [];
  private transfer: ArrayBuffer[] = [];
  private flushing = false;

  constructor(
    private readonly config: MirrorConfig,
    private readonly queueLimit: number,
    private readonly onResult: (result: MirrorResult | MirrorFailure) => void,
  ) {
    this.worker = this.start();
  }

  /** Jobs waiting or in flight. */
  get queued(): number {
    return this.waiting.size;
  }

  /** Whether one more job would be dropped. */
  get full(): boolean {
    return this.waiting.size >= this.queueLimit;
  }

  /**
   * Sends the job to the mirror's thread (with the others of this turn); false (dropped) when the queue is full.
   * `transfer`: the job's own buffers (not views of a shared pool), moved to the thread.
   */
  offer(job: MirrorJob, transfer: ArrayBuffer[] = []): boolean {
    if (this.full) return false;
    this.waiting.add(job.id);
    this.batch.push(job);
    this.transfer.push(...transfer);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(this.flush);
    }
    return true;
  }

  private readonly flush = (): void => {
    this.flushing = false;
    const [jobs, transfer] = [this.batch, this.transfer];
    [this.batch, this.transfer] = [[], []];
    if (jobs.length) this.worker.postMessage(jobs, transfer);
  };

  async close(): Promise<void> {
    this.worker.removeAllListeners();
    await this.worker.terminate();
  }

  private start(): Worker {
    const worker = startWorker(this.config);
    worker.on('message', (results: (MirrorResult | MirrorFailure)[]) => {
      for (const result of results) {
        this.waiting.delete(result.id);
        this.onResult(result);
      }
    });
    // The thread failed (it should not): its jobs are reported failed and a new thread takes the next ones.
    worker.on('error', (error) => {
      for (const id of this.waiting) this.onResult({ id, failed: `mirror thread failed: ${error.message}` });
      this.waiting.clear();
      this.worker = this.start();
    });
    worker.unref();
    return worker;
  }
}
