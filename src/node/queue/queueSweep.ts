// A sweep across machines: the coordinator. It plans the sweep like the thread sweep does, puts one
// BullMQ job per missing (seed, params) on a Redis queue, and appends each episode to the results
// file as it comes back from whichever `aicc worker` ran it. The results file stays the one record
// of what is done; Redis holds only what is in flight.
//
// How a job lives, and why:
// - Its id is jobId(job) (world, params hash, seed): re-adding a job that is already on the queue
//   is a no-op, so a resumed coordinator cannot run an episode twice by adding it twice.
// - It is added with removeOnComplete/removeOnFail off: its result stays in Redis until the
//   coordinator has written it, and only then does the coordinator remove it (Redis memory stays
//   bounded by what is in flight). A coordinator that is stopped or killed leaves its jobs running;
//   on `resume` it first looks each missing job up and takes the result of one that completed while
//   it was away, retries one that failed, waits for one still queued, and adds only the rest.
// - At most `maxQueued` jobs of the sweep are in Redis at once; more are added as results arrive.
// - Completions arrive as QueueEvents; a poll of the outstanding ids every `pollMs` catches any
//   event lost across a reconnect (or trimmed from the event stream), and re-adds a job that vanished.
// - A worker that is killed leaves its job active with a lock that is no longer renewed: BullMQ's
//   stall check (in the other workers) puts it back after lockDuration + stalledInterval.
// - A job whose episode throws fails the sweep: the results written so far stay, and `resume`
//   (after fixing the world) retries it.

import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { CapsuleError } from '../../base/errors.js';
import type { EpisodeSummary } from '../../research/episode.js';
import { jobId, episodeKey, type SweepJob } from '../../research/sweepPlan.js';
import type { JobSpec } from '../sweep/job.js';
import { readResults, ResultsWriter } from '../sweep/resultsFile.js';
import { type PreparedSweep, prepareSweep, workerWorld } from '../sweep/prepareSweep.js';
import type { SweepHooks } from '../sweep/runSweep.js';
import { sweepResult, type SweepOptions, type SweepResult } from '../sweep/sweepResult.js';
import { loadDrivers, openRedis, parseRedisUrl } from './connection.js';
import { checkQueueName, DEFAULT_QUEUE_NAME } from './queueName.js';

/** Default for `maxQueued`: jobs of one sweep in Redis at once. */
export const MAX_QUEUED = 1000;
/** Default for `pollMs`. */
export const POLL_MS = 2000;
/** Jobs per addBulk, per batch of look-ups and per batch of removals. */
const BATCH = 500;

export interface QueueSweepOptions extends SweepOptions {
  /** The queue's Redis: `redis://host:port[/db]` (`rediss://` for TLS). */
  queue: string;
  /** Default DEFAULT_QUEUE_NAME; the workers must serve the same name. */
  queueName?: string;
  /** Most jobs of this sweep in Redis at once: waiting, running, or done and not yet written. Default MAX_QUEUED. */
  maxQueued?: number;
  /** How often the outstanding jobs are looked up besides the completion events (ms). Default POLL_MS. */
  pollMs?: number;
  /** How long reaching Redis may take at the start (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /** Told the ids of the jobs this call puts on the queue, batch by batch (added, or failed ones retried). */
  onAdded?: (jobIds: readonly string[]) => void;
  /** Told of Redis errors the sweep survives (a reconnect in progress). */
  onError?: (error: Error) => void;
}

/** What an eval adds to a queue sweep: its plan made already (with its agents), its jobs' fields, and each episode as it is written. */
export interface QueueSweepHooks extends SweepHooks {
  prepared?: PreparedSweep;
}

/**
 * Runs a sweep on a BullMQ queue; resolves once every job's episode is in the results file, or once
 * `signal` stops it (the jobs on the queue keep running; `resume` collects them).
 */
export async function runQueueSweep(options: QueueSweepOptions, hooks: QueueSweepHooks = {}): Promise<SweepResult> {
  const place = 'runQueueSweep';
  const target = parseRedisUrl(options.queue, place);
  const queueName = checkQueueName(options.queueName ?? DEFAULT_QUEUE_NAME, place);
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  if (!(Number.isSafeInteger(maxQueued) && maxQueued >= 1))
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: maxQueued must be a whole number >= 1, got ${maxQueued}`);
  const pollMs = options.pollMs ?? POLL_MS;
  if (!(Number.isFinite(pollMs) && pollMs >= 10)) throw new CapsuleError('AICC_INVALID_OPTION', `${place}: pollMs must be a number of ms >= 10, got ${pollMs}`);
  const { plan, held } = hooks.prepared ?? (await prepareSweep(options, 'runQueueSweep'));
  const todo = plan.filter((job) => !held.keys.has(job.key));
  const done = plan.length - todo.length;
  options.progress?.(done, plan.length);
  if (todo.length === 0 || options.signal?.aborted === true) return sweepResult(plan, held.episodes, 0);

  const drivers = await loadDrivers(place);
  const client = await openRedis(target, drivers, place, {
    ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.onError !== undefined && { onError: options.onError }),
  });
  let writer: ResultsWriter;
  try {
    // Opening cuts a torn last line off, so the next line starts whole.
    writer = new ResultsWriter(options.out, held.wholeBytes);
  } catch (error) {
    client.disconnect();
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: cannot write the results file ${options.out} (${(error as Error).message})`);
  }
  const world = workerWorld(options.world);
  const spec = (job: SweepJob): JobSpec => ({
    world,
    seed: job.seed,
    params: job.params,
    ...(job.agent !== undefined && { agent: job.agent }),
    ...(options.maxTicks !== undefined && { maxTicks: options.maxTicks }),
    ...(options.hashEvery !== undefined && { hashEvery: options.hashEvery }),
    ...hooks.jobFields,
  });
  const connection = { connection: client };
  const sweep = new Coordinator({
    queue: new drivers.bullmq.Queue(queueName, connection),
    events: new drivers.bullmq.QueueEvents(queueName, connection),
    Job: drivers.bullmq.Job,
    client,
    queueName,
    todo,
    total: plan.length,
    done,
    spec,
    writer,
    maxQueued,
    pollMs,
    options,
    ...(hooks.onEpisode !== undefined && { onEpisode: hooks.onEpisode }),
  });
  try {
    await sweep.run();
  } finally {
    // Every episode that arrived is written by now; a failure to hang up must not hide the sweep's own outcome.
    await sweep.close().catch((error: Error) => options.onError?.(error));
    writer.close();
  }
  return sweepResult(plan, readResults(options.out).episodes, sweep.ran);
}

interface CoordinatorSetup {
  queue: Queue;
  events: QueueEvents;
  Job: typeof Job;
  client: Redis;
  queueName: string;
  todo: readonly SweepJob[];
  total: number;
  done: number;
  spec: (job: SweepJob) => JobSpec;
  writer: ResultsWriter;
  maxQueued: number;
  pollMs: number;
  options: QueueSweepOptions;
  onEpisode?: (episode: EpisodeSummary) => void;
}

/** One run of the coordinator: what is outstanding on the queue, and the loop that keeps it moving. */
class Coordinator {
  /** Episodes this call wrote. */
  ran = 0;
  private done: number;
  /** The todo list's next job not yet looked up or added. */
  private next = 0;
  /** Jobs on the queue whose episode is not written yet, by job id. */
  private readonly outstanding = new Map<string, SweepJob>();
  /** Written jobs still to remove from Redis. */
  private written: string[] = [];
  private failure: unknown;
  private closed = false;
  /** Set when something happened that the loop must look at; cleared when it looks. */
  private woken = false;
  private wake: (() => void) | undefined;
  private readonly onAbort = (): void => this.wakeUp();
  /** When the last completion or failure event came: while they flow, nothing needs polling. */
  private lastEventAt = 0;

  constructor(private readonly s: CoordinatorSetup) {
    this.done = s.done;
    const onError = (error: Error): void => s.options.onError?.(error);
    s.queue.on('error', onError);
    s.events.on('error', onError);
    s.events.on('completed', ({ jobId: id, returnvalue }) => {
      this.lastEventAt = performance.now();
      this.settle(id, returnvalue);
    });
    s.events.on('failed', ({ jobId: id, failedReason }) => {
      this.lastEventAt = performance.now();
      this.fail(id, failedReason);
    });
    s.options.signal?.addEventListener('abort', this.onAbort);
  }

  private get stopped(): boolean {
    return this.failure !== undefined || this.s.options.signal?.aborted === true;
  }

  async run(): Promise<void> {
    const { todo, maxQueued, pollMs } = this.s;
    await this.s.events.waitUntilReady();
    let polled = performance.now();
    while (!this.stopped && (this.outstanding.size > 0 || this.next < todo.length)) {
      if (this.outstanding.size < maxQueued && this.next < todo.length) {
        await this.refill();
        continue;
      }
      await this.removeWritten();
      if (this.stopped) break;
      await this.idle(pollMs - (performance.now() - Math.max(polled, this.lastEventAt)));
      // The poll is the safety net for missed events: only once they have stopped for pollMs (it
      // costs a Redis lookup per outstanding job, more than the jobs themselves when run every time).
      if (performance.now() - Math.max(polled, this.lastEventAt) >= pollMs) {
        await this.poll();
        polled = performance.now();
      }
    }
    await this.removeWritten();
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stops listening and lets go of Redis (the jobs on the queue stay). */
  async close(): Promise<void> {
    this.closed = true;
    this.s.options.signal?.removeEventListener('abort', this.onAbort);
    try {
      await this.s.events.close();
      await this.s.queue.close();
    } finally {
      this.s.client.disconnect();
    }
  }

  /** Looks up the todo list's next jobs and adds the ones Redis does not hold. */
  private async refill(): Promise<void> {
    const { queue, Job: JobClass, queueName, todo, maxQueued, options } = this.s;
    const batch = todo.slice(this.next, this.next + Math.min(BATCH, maxQueued - this.outstanding.size));
    this.next += batch.length;
    const found = await Promise.all(batch.map((job) => JobClass.fromId<JobSpec, unknown>(queue, jobId(job))));
    const add: SweepJob[] = [];
    const retried: string[] = [];
    for (const [index, job] of batch.entries()) {
      const id = jobId(job);
      const existing = found[index];
      if (existing === undefined) {
        add.push(job);
        continue;
      }
      const state = await existing.getState();
      // The job id does not cover maxTicks and hashEvery: a job left by a sweep with other ones is not this job.
      if (existing.data?.maxTicks !== options.maxTicks || existing.data?.hashEvery !== options.hashEvery) {
        if (state !== 'completed' && state !== 'failed') {
          throw new CapsuleError(
            'AICC_INVALID_OPTION',
            `runQueueSweep: job ${id} is on queue ${queueName} with other maxTicks or hashEvery, and still ${state}: another sweep is running it; give this sweep its own queueName`,
          );
        }
        await existing.remove();
        add.push(job);
        continue;
      }
      this.outstanding.set(id, job);
      // It may have completed after `existing` was read (then without its result): read that now.
      if (state === 'completed') this.settle(id, existing.returnvalue ?? (await JobClass.fromId(queue, id))?.returnvalue);
      else if (state === 'failed') {
        await existing.retry('failed');
        retried.push(id);
      }
    }
    await this.add(add);
    if (retried.length > 0) options.onAdded?.(retried);
  }

  private async add(jobs: readonly SweepJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const ids = jobs.map((job) => jobId(job));
    // Outstanding before the add: a completion can arrive before addBulk resolves.
    jobs.forEach((job, index) => this.outstanding.set(ids[index]!, job));
    await this.s.queue.addBulk(
      jobs.map((job, index) => ({ name: 'episode', data: this.s.spec(job), opts: { jobId: ids[index]!, removeOnComplete: false, removeOnFail: false } })),
    );
    this.s.options.onAdded?.(ids);
  }

  /** Writes a job's episode, once: the first of its completion event and the poll that sees it. */
  private settle(id: string, value: unknown): void {
    const job = this.outstanding.get(id);
    if (job === undefined || this.closed) return;
    const episode = value as EpisodeSummary | null;
    const key = episode !== null && typeof episode === 'object' && typeof episode.world === 'string' ? episodeKey(episode) : undefined;
    if (key !== job.key) {
      this.failure ??= new CapsuleError(
        'AICC_INVALID_OPTION',
        `runQueueSweep: job ${id} (${job.key}) came back as ${key ?? JSON.stringify(value)?.slice(0, 80)}; do the workers run another version of the world?`,
      );
      this.wakeUp();
      return;
    }
    this.outstanding.delete(id);
    this.s.writer.append(episode!);
    this.s.onEpisode?.(episode!);
    this.written.push(id);
    this.ran++;
    this.done++;
    try {
      this.s.options.progress?.(this.done, this.s.total);
    } catch (error) {
      this.failure ??= error;
    }
    this.wakeUp();
  }

  private fail(id: string, reason: string): void {
    const job = this.outstanding.get(id);
    if (job === undefined || this.closed) return;
    this.failure ??= new CapsuleError(
      'AICC_INVALID_OPTION',
      `runQueueSweep: episode ${job.key} failed on a worker: ${reason}; the episodes written so far are kept, and resume retries this one`,
    );
    this.wakeUp();
  }

  /** Looks every outstanding job up: a completion or failure whose event was missed, or a job that vanished. */
  private async poll(): Promise<void> {
    const { queue, Job: JobClass } = this.s;
    const ids = [...this.outstanding.keys()];
    for (let start = 0; start < ids.length && !this.stopped; start += BATCH) {
      const chunk = ids.slice(start, start + BATCH);
      const states = await Promise.all(chunk.map((id) => queue.getJobState(id)));
      const vanished: SweepJob[] = [];
      for (const [index, id] of chunk.entries()) {
        const state = states[index];
        if (state === 'completed' || state === 'failed') {
          const job = await JobClass.fromId(queue, id);
          if (job === undefined) continue;
          if (state === 'completed') this.settle(id, job.returnvalue);
          else this.fail(id, job.failedReason);
        } else if (state === 'unknown' && this.outstanding.has(id)) {
          // Removed by someone else, or lost by a Redis without persistence: run it again.
          vanished.push(this.outstanding.get(id)!);
        }
      }
      await this.add(vanished);
    }
  }

  private async removeWritten(): Promise<void> {
    while (this.written.length > 0) {
      const ids = this.written.splice(0, BATCH);
      await Promise.all(ids.map((id) => this.s.queue.remove(id)));
    }
  }

  private wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Waits up to `ms`, or until a result, a failure or the abort signal wakes the loop (at once if one came meanwhile). */
  private idle(ms: number): Promise<void> {
    if (this.woken || ms <= 0) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
