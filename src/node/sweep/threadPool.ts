// The worker threads of a sweep on one machine: up to `size` threads running the compiled worker
// (dist/sweepWorker.js — compiled, because a worker thread has no TypeScript loader), one job per
// thread at a time. A thread that dies with a job in flight (terminated, out of memory, a native
// crash) is replaced and the job given again, a bounded number of times; a job that throws inside
// its episode is not retried: episodes are deterministic, so it would only throw again.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CapsuleError } from '../../base/errors.js';
import type { EpisodeSummary } from '../../research/episode.js';
import type { SweepJob } from '../../research/sweepPlan.js';
import { jobLabel, type JobSpec } from './job.js';
import type { JobMessage, JobReply } from './sweepWorker.js';

/** What the pool tells its owner about its threads (tests kill a thread through it). */
export type ThreadEvent = { type: 'started'; job: SweepJob; worker: Worker };

export interface ThreadPoolOptions {
  /** Most threads at once; each runs one job at a time. */
  size: number;
  /** The worker entry. Default: dist/sweepWorker.js of this package (defaultWorkerUrl). */
  workerUrl?: URL;
  /** Told each time a job is handed to a thread (again, after its thread died). */
  onThread?: (event: ThreadEvent) => void;
  /** Threads a job may see die under it before the sweep gives up on it. Default 3. */
  maxDeaths?: number;
}

/** Three threads dead under one job: the job kills them, it is not bad luck. */
export const DEFAULT_MAX_DEATHS = 3;

interface Task {
  job: SweepJob;
  spec: JobSpec;
  deaths: number;
  resolve(episode: EpisodeSummary): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  /** The job in flight, if any. */
  task: Task | undefined;
  /** The id of the message carrying that job: a reply with another id is stale. */
  messageId: number;
  /** What the thread threw before it exited, for the message when a job gives up. */
  lastError: Error | undefined;
}

export class ThreadPool {
  readonly size: number;
  readonly workerUrl: URL;
  private readonly threads = new Set<Thread>();
  private readonly onThread: ThreadPoolOptions['onThread'];
  private readonly maxDeaths: number;
  private nextMessageId = 0;
  private closed = false;

  constructor(options: ThreadPoolOptions) {
    if (!(Number.isInteger(options.size) && options.size >= 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `ThreadPool: size must be a whole number >= 1, got ${options.size}`);
    this.size = options.size;
    this.workerUrl = options.workerUrl ?? defaultWorkerUrl();
    if (this.workerUrl.protocol === 'file:' && !existsSync(fileURLToPath(this.workerUrl))) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `ThreadPool: the worker script ${fileURLToPath(this.workerUrl)} does not exist; pass workerUrl a compiled worker entry`,
      );
    }
    this.onThread = options.onThread;
    this.maxDeaths = options.maxDeaths ?? DEFAULT_MAX_DEATHS;
  }

  /**
   * Runs one job on an idle thread (starting one if fewer than `size` run). The caller keeps at most
   * `size` jobs in flight: the pool holds no queue of its own, so nothing in it grows unbounded.
   */
  run(job: SweepJob, spec: JobSpec): Promise<EpisodeSummary> {
    if (this.closed) return Promise.reject(new CapsuleError('AICC_INVALID_OPTION', 'ThreadPool.run: the pool is closed'));
    let thread: Thread | undefined;
    for (const candidate of this.threads) if (candidate.task === undefined) thread = candidate;
    if (thread === undefined && this.threads.size >= this.size) {
      return Promise.reject(
        new CapsuleError('AICC_INVALID_OPTION', `ThreadPool.run: all ${this.size} threads are busy; run at most ${this.size} jobs at once`),
      );
    }
    const idle = thread ?? this.spawn();
    return new Promise((resolve, reject) => this.send(idle, { job, spec, deaths: 0, resolve, reject }));
  }

  /** Ends every thread. A job still in flight is rejected; close once the jobs you care about settled. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.threads];
    this.threads.clear();
    for (const thread of threads) {
      thread.task?.reject(new CapsuleError('AICC_INVALID_OPTION', `ThreadPool: closed while the episode ${jobLabel(thread.task.job)} was in flight`));
      thread.task = undefined;
    }
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private spawn(): Thread {
    const thread: Thread = { worker: new Worker(this.workerUrl), task: undefined, messageId: -1, lastError: undefined };
    this.threads.add(thread);
    thread.worker.on('message', (reply: JobReply) => this.reply(thread, reply));
    // An uncaught error ends the thread: 'exit' follows and does the bookkeeping.
    thread.worker.on('error', (error: Error) => (thread.lastError = error));
    thread.worker.on('exit', (code: number) => this.died(thread, code));
    return thread;
  }

  private send(thread: Thread, task: Task): void {
    thread.task = task;
    thread.messageId = this.nextMessageId++;
    thread.worker.postMessage({ type: 'job', id: thread.messageId, job: task.spec } satisfies JobMessage);
    try {
      this.onThread?.({ type: 'started', job: task.job, worker: thread.worker });
    } catch (error) {
      thread.task = undefined;
      task.reject(error);
    }
  }

  private reply(thread: Thread, reply: JobReply): void {
    const task = thread.task;
    if (task === undefined || reply.id !== thread.messageId) return;
    thread.task = undefined;
    if (reply.type === 'done') task.resolve(reply.episode);
    else
      task.reject(
        new CapsuleError(
          'AICC_INVALID_OPTION',
          `runSweep: the episode ${jobLabel(task.job)} failed: ${reply.message}; the sweep stops, the episodes written so far are kept (once it is fixed, --resume runs the rest)`,
        ),
      );
  }

  private died(thread: Thread, code: number): void {
    thread.worker.removeAllListeners();
    if (!this.threads.delete(thread)) return; // closed by us
    const task = thread.task;
    thread.task = undefined;
    if (task === undefined) return; // an idle thread: the next run starts a fresh one
    task.deaths++;
    if (task.deaths >= this.maxDeaths || this.closed) {
      const cause = thread.lastError === undefined ? `it exited with code ${code}` : thread.lastError.message;
      task.reject(
        new CapsuleError(
          'AICC_INVALID_OPTION',
          `runSweep: the episode ${jobLabel(task.job)} killed its worker thread ${task.deaths} times (last: ${cause}); the sweep stops, the episodes written so far are kept (--resume runs the rest)`,
        ),
      );
      return;
    }
    let replacement: Thread;
    try {
      replacement = this.spawn();
    } catch (error) {
      task.reject(error);
      return;
    }
    this.send(replacement, task);
  }
}

/**
 * dist/sweepWorker.js of the aicc-capsule package this module belongs to: the nearest package.json
 * named aicc-capsule above this file, so it works from src/ (tests) and from an installed dist/.
 */
export function defaultWorkerUrl(from: string | URL = import.meta.url): URL {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readName(manifest) === 'aicc-capsule') {
      const worker = join(dir, 'dist', 'sweepWorker.js');
      if (!existsSync(worker))
        throw new CapsuleError('AICC_INVALID_OPTION', `runSweep: the compiled sweep worker ${worker} is missing; run \`npm run build\` in ${dir} first`);
      return pathToFileURL(worker);
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `runSweep: no aicc-capsule package.json above ${fileURLToPath(from)}, so no sweep worker to run; pass workerUrl`,
      );
    dir = parent;
  }
}

function readName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined; // an unreadable package.json is not ours: keep walking up
  }
}
