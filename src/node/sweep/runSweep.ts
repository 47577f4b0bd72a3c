// A sweep on one machine: the plan (every params combination with every seed) made and checked in
// the coordinator, the jobs the results file does not hold yet run on a pool of worker threads, each
// episode appended to the file the moment it arrives. The result is read back from the file, so a
// fresh sweep and a resumed one report the same episodes and aggregate, whatever the thread count.

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { CapsuleError } from '../../base/errors.js';
import { episodeKey, type SweepJob } from '../../research/sweepPlan.js';
import type { EpisodeSummary } from '../../research/episode.js';
import { jobLabel, type JobSpec } from './job.js';
import { type PreparedSweep, prepareSweep, workerWorld } from './prepareSweep.js';
import { readResults, ResultsWriter } from './resultsFile.js';
import { sweepResult, type SweepOptions, type SweepResult } from './sweepResult.js';
import { ThreadPool } from './threadPool.js';

export interface ThreadSweepOptions extends SweepOptions {
  /** Worker threads; default os.availableParallelism(). Never more than the jobs left to run. */
  workers?: number;
  /** The compiled worker entry; default this package's dist/sweepWorker.js. */
  workerUrl?: URL;
  /** Told each time a job is handed to a thread (a test kills a thread through it). */
  onThread?: (event: { type: 'started'; job: SweepJob; worker: Worker }) => void;
}

/** Most worker threads a sweep starts: a typo like --workers 4000 should fail, not start 4000 isolates. */
export const MAX_WORKERS = 256;

/** Runs a sweep on worker threads; resolves once every job ran (or `signal` stopped it and the jobs in flight were written). */
export async function runSweep(options: ThreadSweepOptions): Promise<SweepResult> {
  checkWorkers(options);
  return runPreparedSweep(options, await prepareSweep(options, 'runSweep', { setUpOnce: true }));
}

/** What an eval adds to a sweep it runs: fields for every job, and each episode as it is written. */
export interface SweepHooks {
  /** Set on every job sent to a thread (an eval's roles, hang deadline, model answer limit and recordings). */
  jobFields?: Pick<
    JobSpec,
    'roles' | 'hangMs' | 'maxTokens' | 'recordDir' | 'recordBase' | 'providerSlots' | 'providerConcurrency' | 'pi' | 'quietMs' | 'answeredMs'
  >;
  /** Told each episode once it is in the results file (an eval's budget counts it). */
  onEpisode?: (episode: EpisodeSummary) => void;
}

/** runSweep for a sweep its caller prepared (checked) already: `aicc sweep` does, to tell a usage mistake from a failure. */
export async function runPreparedSweep(options: ThreadSweepOptions, prepared: PreparedSweep, hooks: SweepHooks = {}): Promise<SweepResult> {
  const workers = checkWorkers(options);
  const { plan, held, todo } = prepared;
  let done = plan.size - todo;
  options.progress?.(done, plan.size);
  // Made, or cut back to its whole lines, at the first episode: a sweep that fails before leaves it as it was.
  const writer = new ResultsWriter(options.out, held.wholeBytes);
  let ran = 0;
  try {
    if (todo > 0 && options.signal?.aborted !== true) {
      const pool = new ThreadPool({
        size: Math.min(workers, todo),
        ...(options.workerUrl !== undefined && { workerUrl: options.workerUrl }),
        ...(options.onThread !== undefined && { onThread: options.onThread }),
      });
      const world = workerWorld(options.world);
      // The plan's jobs the file lacks, made one at a time as the runners take them.
      const jobs = plan.without(held.keys);
      let failure: { error: unknown } | undefined;
      // One runner per thread, each taking the plan's next job: the plan is the only queue.
      const runner = async (): Promise<void> => {
        while (failure === undefined && options.signal?.aborted !== true) {
          const next = jobs.next();
          if (next.done === true) return;
          const job = next.value;
          try {
            const episode = await pool.run(job, { ...jobSpec(world, job, options), ...hooks.jobFields });
            // A worker that loaded some other world (a module changed under the sweep) must not pass as this job.
            const key = episodeKey(episode);
            if (key !== job.key)
              throw new CapsuleError(
                'AICC_INVALID_OPTION',
                `runSweep: the episode of ${jobLabel(job)} came back as ${jobLabel(episode)}; did the world module change during the sweep?`,
              );
            writer.append(episode);
            hooks.onEpisode?.(episode);
            ran++;
            done++;
            options.progress?.(done, plan.size);
          } catch (error) {
            // The other runners finish their episode in flight (it is written), then stop.
            failure ??= { error };
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: pool.size }, runner));
      } finally {
        await pool.close();
      }
      if (failure !== undefined) throw failure.error;
    }
  } finally {
    writer.close();
  }
  return sweepResult(plan, readResults(options.out).episodes, ran);
}

function checkWorkers(options: ThreadSweepOptions): number {
  const workers = options.workers ?? availableParallelism();
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= MAX_WORKERS))
    throw new CapsuleError('AICC_INVALID_OPTION', `runSweep: workers must be a whole number from 1 to ${MAX_WORKERS}, got ${workers}`);
  return workers;
}

function jobSpec(world: string, job: SweepJob, options: SweepOptions): JobSpec {
  return {
    world,
    seed: job.seed,
    params: job.params,
    ...(job.agent !== undefined && { agent: job.agent }),
    ...(options.maxTicks !== undefined && { maxTicks: options.maxTicks }),
    ...(options.hashEvery !== undefined && { hashEvery: options.hashEvery }),
  };
}
