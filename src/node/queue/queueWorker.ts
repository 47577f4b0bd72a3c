// A queue worker: what `aicc worker` runs on each machine of a sweep. A BullMQ Worker whose
// processor is runJob — the same function a worker thread runs — so an episode's summary does not
// depend on where it ran. It holds a lock on each job it runs and renews it; a worker that dies
// stops renewing, and after lockDuration + stalledInterval another worker's stall check puts the
// job back on the queue. BullMQ's defaults (30 s each) suit real sweeps; tests pass small values.

import { hostname } from 'node:os';
import { CapsuleError } from '../../base/errors.js';
import type { EpisodeSummary } from '../../research/episode.js';
import { runJob, type JobSpec } from '../sweep/job.js';
import { loadDrivers, openRedis, parseRedisUrl } from './connection.js';
import { checkQueueName, DEFAULT_QUEUE_NAME } from './queueName.js';

/** What a worker tells `onJob` about each job it finishes. */
export type QueueWorkerEvent =
  | { type: 'completed'; jobId: string; world: string; seed: number; ms: number }
  | { type: 'failed'; jobId: string; message: string };

export interface QueueWorkerOptions {
  /** The queue's Redis: `redis://host:port[/db]`. */
  queue: string;
  /** Default DEFAULT_QUEUE_NAME (what a sweep uses unless told otherwise). */
  queueName?: string;
  /**
   * Jobs run at once in this process. Default 1: an episode keeps its thread busy, so more at once
   * only interleave; run one worker process per core instead.
   */
  concurrency?: number;
  /** How long a job's lock lasts unless renewed (ms). Default BullMQ's, 30 000. */
  lockDurationMs?: number;
  /** How often this worker checks for jobs whose lock lapsed (ms). Default BullMQ's, 30 000. */
  stalledIntervalMs?: number;
  /** Names this worker in each job it runs (BullMQ's processedBy). Default `host:pid`. */
  name?: string;
  /** Stops taking jobs; the worker finishes the ones it runs, closes, and the promise resolves. */
  signal?: AbortSignal;
  /** How long reaching Redis may take at the start (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /** Told once the worker is connected and taking jobs. */
  onReady?: () => void;
  /** Told of each job this worker finishes. */
  onJob?: (event: QueueWorkerEvent) => void;
  /** Told of errors the worker survives (a lost connection while it reconnects). */
  onError?: (error: Error) => void;
}

/** What a worker did before it stopped. */
export interface QueueWorkerReport {
  completed: number;
  failed: number;
}

/** Largest concurrency: a typo like 10000 should fail, not start that many episodes at once. */
export const MAX_CONCURRENCY = 256;

/**
 * Serves a sweep's queue until `signal` aborts (without one, until the process ends). Throws at once
 * for bad options and, within the connect timeout, when Redis cannot be reached.
 */
export async function runQueueWorker(options: QueueWorkerOptions): Promise<QueueWorkerReport> {
  const place = 'runQueueWorker';
  const target = parseRedisUrl(options.queue, place);
  const queueName = checkQueueName(options.queueName ?? DEFAULT_QUEUE_NAME, place);
  const concurrency = options.concurrency ?? 1;
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY))
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${concurrency}`);
  for (const [name, value] of [
    ['lockDurationMs', options.lockDurationMs],
    ['stalledIntervalMs', options.stalledIntervalMs],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 100))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: ${name} must be a whole number of ms >= 100, got ${value}`);
  }
  const report: QueueWorkerReport = { completed: 0, failed: 0 };
  if (options.signal?.aborted === true) return report;
  const drivers = await loadDrivers(place);
  const client = await openRedis(target, drivers, place, {
    ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.onError !== undefined && { onError: options.onError }),
  });
  const worker = new drivers.bullmq.Worker<JobSpec, EpisodeSummary>(queueName, (job) => runJob(job.data), {
    connection: client,
    concurrency,
    name: options.name ?? `${hostname()}:${process.pid}`,
    ...(options.lockDurationMs !== undefined && { lockDuration: options.lockDurationMs }),
    ...(options.stalledIntervalMs !== undefined && { stalledInterval: options.stalledIntervalMs }),
  });
  worker.on('error', (error) => options.onError?.(error));
  worker.on('completed', (job, episode) => {
    report.completed++;
    options.onJob?.({ type: 'completed', jobId: job.id ?? '', world: episode.world, seed: episode.seed, ms: episode.wallMs });
  });
  worker.on('failed', (job, error) => {
    report.failed++;
    options.onJob?.({ type: 'failed', jobId: job?.id ?? '', message: error.message });
  });
  try {
    await worker.waitUntilReady();
    options.onReady?.();
    await new Promise<void>((resolve) => {
      if (options.signal === undefined) return; // serves until the process ends
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    // Waits for the jobs in hand to finish, so none is left to stall.
    await worker.close();
    client.disconnect();
  }
  return report;
}
