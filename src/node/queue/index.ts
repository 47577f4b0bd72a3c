// aicc-capsule/queue — sweeps across machines on BullMQ over Redis (Node only). The coordinator
// (`runQueueSweep`, or `aicc sweep … --queue redis://…`) puts one job per episode on a queue;
// workers (`runQueueWorker`, or `aicc worker --queue redis://…`) on any machine run them, and the
// results flow back into the coordinator's results file and aggregate. bullmq and ioredis are
// optional peer dependencies, loaded only by this entry.

export { runQueueSweep, MAX_QUEUED, POLL_MS, type QueueSweepOptions } from './queueSweep.js';
export { runQueueWorker, MAX_CONCURRENCY, type QueueWorkerOptions, type QueueWorkerEvent, type QueueWorkerReport } from './queueWorker.js';
export { DEFAULT_QUEUE_NAME } from './queueName.js';
export { parseRedisUrl, CONNECT_TIMEOUT_MS, type RedisTarget } from './connection.js';
export type { SweepOptions, SweepResult } from '../sweep/sweepResult.js';
export type { SweepHooks } from '../sweep/runSweep.js';
