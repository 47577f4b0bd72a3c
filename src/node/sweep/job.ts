// One sweep job as it travels to a worker thread or a queue worker, and how a worker runs it: the
// world by the name or module the coordinator was given, the job's seed and params, and the
// episode's options. Plain JSON, so it survives postMessage and a Redis round trip unchanged.

import { runEpisode, type EpisodeSummary } from '../../research/episode.js';
import type { Params } from '../../research/world.js';
import { type EvalJobFields, runEvalJob } from '../eval/evalJob.js';
import { loadWorld } from './loadWorld.js';

/** A job: the world, seed, params and ticks; in an eval also its agent under test and the eval's settings. */
export interface JobSpec extends Partial<EvalJobFields> {
  /** A built-in world's name or a module path (absolute, so any worker finds it). */
  world: string;
  seed: number;
  params: Params;
  maxTicks?: number;
  hashEvery?: number;
}

/** Runs one job's episode. Worlds are loaded once per process and reused for its next jobs. */
export async function runJob(job: JobSpec): Promise<EpisodeSummary> {
  const world = await cachedWorld(job.world);
  if (job.agent !== undefined) return runEvalJob(world, { ...job, agent: job.agent });
  return runEpisode(world, {
    seed: job.seed,
    params: job.params,
    ...(job.maxTicks !== undefined && { maxTicks: job.maxTicks }),
    ...(job.hashEvery !== undefined && { hashEvery: job.hashEvery }),
  });
}

const loaded = new Map<string, ReturnType<typeof loadWorld>>();

function cachedWorld(spec: string): ReturnType<typeof loadWorld> {
  let world = loaded.get(spec);
  if (world === undefined) {
    world = loadWorld(spec);
    // A module that failed to load may be fixed before the next job: do not keep the failure.
    world.catch(() => loaded.delete(spec));
    loaded.set(spec, world);
  }
  return world;
}

/** A job as a user reads it in a message: `village seed 7 (apples=3, dayTicks=600)`. */
export function jobLabel(job: Pick<JobSpec, 'world' | 'seed' | 'params'>): string {
  const params = Object.entries(job.params).map(([name, value]) => `${name}=${String(value)}`);
  return `${job.world} seed ${job.seed}${params.length > 0 ? ` (${params.join(', ')})` : ''}`;
}
