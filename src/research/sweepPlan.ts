// What a sweep runs: every combination of the parameter grid, each with every seed, one job each.
// A job's key names it everywhere — the results file, the resume check, the queue's job id — so
// re-running a finished job is found out and skipped instead of being counted twice.

import { CapsuleError } from '../base/errors.js';
import { cyrb128 } from '../adapters/headless/random.js';
import { stableStringify } from '../runtime/validator.js';
import type { ParamValue, Params, World } from './world.js';

export interface SweepJob {
  world: string;
  seed: number;
  /** The world's defaults with this combination's values over them. */
  params: Params;
  /** In an eval: the agent under test, by the name the eval gives it (and its spec, for the worker). */
  agent?: { name: string; spec: string };
  /** `world/paramsKey/seed` (`world/paramsKey/agent/seed` in an eval): unique in a sweep, the same on every machine. */
  key: string;
}

/** The canonical text of a params object (keys sorted): equal params, equal text. */
export function paramsKey(params: Params): string {
  return stableStringify(params);
}

export function jobKey(world: string, params: Params, seed: number, agent?: string): string {
  return agent === undefined ? `${world}/${paramsKey(params)}/${seed}` : `${world}/${paramsKey(params)}/${agent}/${seed}`;
}

/** The key of the job an episode (a results file's line) answers: an eval's episodes name their agent. */
export function episodeKey(episode: { world: string; params: Params; seed: number; agent?: unknown }): string {
  return jobKey(episode.world, episode.params, episode.seed, typeof episode.agent === 'string' ? episode.agent : undefined);
}

/**
 * An id safe for any job engine (BullMQ refuses ':' and whole numbers): the world, a hash of the
 * params and the seed, e.g. `village-1a2b3c4d5e6f7a8b-17`.
 */
export function jobId(job: Pick<SweepJob, 'world' | 'params' | 'seed' | 'agent'>): string {
  const [a, b] = cyrb128(job.agent === undefined ? paramsKey(job.params) : `${paramsKey(job.params)}/${job.agent.name}`);
  return `${job.world}-${a!.toString(16).padStart(8, '0')}${b!.toString(16).padStart(8, '0')}-${job.seed}`;
}

/** Every (params, seed) pair: combinations in the grid's order (its first key varies slowest), then seeds. */
export function planSweep(world: World, seeds: readonly number[], grid: Readonly<Record<string, readonly ParamValue[]>> = {}): SweepJob[] {
  if (seeds.length === 0) throw new CapsuleError('AICC_INVALID_OPTION', 'planSweep: no seeds to run');
  for (const seed of seeds)
    if (!Number.isSafeInteger(seed)) throw new CapsuleError('AICC_INVALID_OPTION', `planSweep: seeds must be whole numbers, got ${seed}`);
  if (new Set(seeds).size !== seeds.length) throw new CapsuleError('AICC_INVALID_OPTION', 'planSweep: a seed is listed twice');
  let combinations: Array<Record<string, ParamValue>> = [{}];
  for (const [name, values] of Object.entries(grid)) {
    if (values.length === 0) throw new CapsuleError('AICC_INVALID_OPTION', `planSweep: parameter ${name} has no values`);
    combinations = combinations.flatMap((combination) => values.map((value) => ({ ...combination, [name]: value })));
  }
  const jobs: SweepJob[] = [];
  const keys = new Set<string>();
  for (const combination of combinations) {
    const params = world.resolveParams(combination);
    for (const seed of seeds) {
      const key = jobKey(world.name, params, seed);
      // Two grid values that read the same ("2" and "2.0") would run one job twice.
      if (keys.has(key)) throw new CapsuleError('AICC_INVALID_OPTION', `planSweep: the grid gives the same params twice (${paramsKey(params)})`);
      keys.add(key);
      jobs.push({ world: world.name, seed, params, key });
    }
  }
  return jobs;
}

/** Most seeds one range may name: a typo like 1..1e9 should fail at once, not fill the memory. */
export const MAX_SEEDS = 1_000_000;

/** Seeds from the command line: `1..200`, `1,5,9`, or both (`1..10,20`). */
export function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(',')) {
    const range = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/.exec(part);
    if (range !== null) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (to < from || to - from + 1 > MAX_SEEDS)
        throw new CapsuleError('AICC_INVALID_OPTION', `seeds: the range ${part.trim()} must go upwards and hold at most ${MAX_SEEDS} seeds`);
      for (let seed = from; seed <= to; seed++) seeds.push(seed);
    } else if (/^\s*-?\d+\s*$/.test(part)) seeds.push(Number(part));
    else throw new CapsuleError('AICC_INVALID_OPTION', `seeds: expected whole numbers or ranges like 1..200, got ${JSON.stringify(part)}`);
  }
  return seeds;
}
