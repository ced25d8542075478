/**
 * The mirror's thread: mirrored requests and their comparison (parsing and diffing whole bodies) run here, so the
 * proxy's event loop only streams answers to clients. At most `concurrency` mirrors in flight (p-limit); the bound on
 * how many may wait is the pool's (mirror-pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import pLimit from 'p-limit';
import { Mirror, type MirrorConfig, type MirrorJob } from './mirror.ts';

const config = workerData as MirrorConfig;
const mirror = new Mirror(config);
const limit = pLimit(Math.max(1, config.concurrency));

parentPort!.on('message', (job: MirrorJob) => {
  void limit(() => mirror.run(job)).then(
    (result) => parentPort!.postMessage(result),
    (error: unknown) => parentPort!.postMessage({ id: job.id, failed: error instanceof Error ? error.message : String(error) }),
  );
});
