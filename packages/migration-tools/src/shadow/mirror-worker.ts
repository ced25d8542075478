/**
 * The mirror's thread: mirrored requests and their comparison (parsing and diffing whole bodies) run here, so the
 * proxy's event loop only streams answers to clients. At most `concurrency` mirrors in flight (p-limit); the bound on
 * how many may wait is the pool's (mirror-pool.ts). Jobs come in batches; results go back in batches. The thread runs
 * at SCHED_IDLE and nice --mirror-nice (thread-priority.ts), below the one serving clients.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pLimit from 'p-limit';
import type { MirrorFailure } from './mirror-pool.ts';
import { Mirror, type MirrorConfig, type MirrorJob, type MirrorResult } from './mirror.ts';
import { lowerThisThread } from './thread-priority.ts';

const config = workerData as MirrorConfig;
// The mirror takes only the CPU that serving leaves (this thread alone: the one answering clients or nginx is not).
lowerThisThread(config.niceness);
const mirror = new Mirror(config);
const limit = pLimit(Math.max(1, config.concurrency));

// Results finished in one turn go back in one message.
let results: (MirrorResult | MirrorFailure)[] = [];
const send = (result: MirrorResult | MirrorFailure) => {
  if (results.push(result) > 1) return;
  setImmediate(() => {
    parentPort!.postMessage(results);
    results = [];
  });
};

parentPort!.on('message', (jobs: MirrorJob[]) => {
  for (const job of jobs) {
    void limit(() => mirror.run(job)).then(send, (error: unknown) =>
      send({ id: job.id, failed: error instanceof Error ? error.message : String(error) }),
    );
  }
});
