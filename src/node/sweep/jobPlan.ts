// A sweep's plan without its list: every combination of the params grid (resolved and checked
// against the world once each), times the seeds (kept as ranges), handed out one job at a time in
// the order planSweep lists them — combinations first (the grid's first key varies slowest), then
// seeds. A million seeds cost what ten do until the jobs are taken. Before anything runs, each
// combination is also set up once here (checkSetups): a value the world's setup refuses is found
// now, named by its param, not in a worker as a failed job.

import { CapsuleError, messageOf } from '../../base/errors.js';
import { closeEpisode, setUpEpisode } from '../../research/episode.js';
import { paramsKey, type SweepJob } from '../../research/sweepPlan.js';
import type { ParamValue, Params, World } from '../../research/world.js';
import type { SeedList } from './seedList.js';

/** Most params combinations one sweep may have: each is set up once before the sweep starts. */
export const MAX_COMBINATIONS = 10_000;

interface Combination {
  /** The grid's values, as given: what a complaint names. */
  overrides: Readonly<Record<string, ParamValue>>;
  /** The world's defaults with them over. */
  params: Params;
  /** paramsKey(params), made once. */
  key: string;
}

export class JobPlan implements Iterable<SweepJob> {
  private readonly keys: Set<string>;

  constructor(
    readonly world: World,
    private readonly combinations: readonly Combination[],
    readonly seeds: SeedList,
    /** An eval's agents under test: each seed runs once per agent. None in a sweep. */
    readonly agents: ReadonlyArray<{ name: string; spec: string }> = [],
  ) {
    this.keys = new Set(combinations.map((combination) => combination.key));
  }

  /** The params combinations, in the plan's order. */
  get paramsList(): Params[] {
    return this.combinations.map((combination) => combination.params);
  }

  /** Jobs in the plan. */
  get size(): number {
    return this.combinations.length * this.seeds.size * Math.max(1, this.agents.length);
  }

  *[Symbol.iterator](): Iterator<SweepJob> {
    const world = this.world.name;
    for (const { params, key } of this.combinations) {
      // jobKey(world, params, seed[, agent]), with the params' canonical text made once per combination.
      for (const seed of this.seeds) {
        if (this.agents.length === 0) yield { world, seed, params, key: `${world}/${key}/${seed}` };
        // The agents of a seed one after another: an eval stopped early still compares them on the same seeds.
        else for (const agent of this.agents) yield { world, seed, params, agent, key: `${world}/${key}/${agent.name}/${seed}` };
      }
    }
  }

  /** Whether an episode (from a results file) is one of the plan's jobs. */
  includes(episode: { world: string; params: Params; seed: number; agent?: unknown }): boolean {
    const agentKnown = this.agents.length === 0 ? episode.agent === undefined : this.agents.some((agent) => agent.name === episode.agent);
    return agentKnown && episode.world === this.world.name && this.seeds.has(episode.seed) && this.keys.has(paramsKey(episode.params));
  }

  /** The plan's jobs not among `held` (keys of a results file's episodes), taken lazily. */
  *without(held: ReadonlySet<string>): Generator<SweepJob> {
    for (const job of this) if (!held.has(job.key)) yield job;
  }

  // The queue's coordinator (src/node/queue/queueSweep.ts) still takes the plan as an array
  // (plan.length, plan.filter(…)): these keep it working until it takes `without` instead.
  get length(): number {
    return this.size;
  }

  filter(keep: (job: SweepJob) => boolean): SweepJob[] {
    const kept: SweepJob[] = [];
    for (const job of this) if (keep(job)) kept.push(job);
    return kept;
  }

  /**
   * Sets the world up once per combination, with the first seed, and closes it again: a value its
   * setup refuses (village: apples from 0 to 3) throws here, naming the grid's values. It costs one
   * setup per combination, while the sweep runs at least one episode of each.
   */
  async checkSetups(place: string): Promise<void> {
    const seed = this.seeds.first;
    for (const { overrides, params } of this.combinations) {
      let set: Awaited<ReturnType<typeof setUpEpisode>>;
      try {
        set = await setUpEpisode(this.world, seed, params);
      } catch (error) {
        throw refused(this.world, overrides, seed, error, place);
      }
      await closeEpisode(set.episode, new Map(), 'sweep check over');
    }
  }
}

/** The plan of `world` over `seeds` and every combination of `grid`; an unknown param or unreadable value throws. */
export function planJobs(
  world: World,
  seeds: SeedList,
  grid: Readonly<Record<string, readonly ParamValue[]>>,
  place: string,
  agents: ReadonlyArray<{ name: string; spec: string }> = [],
): JobPlan {
  const fail = (message: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: ${message}`);
  };
  let count = 1;
  for (const [name, values] of Object.entries(grid)) {
    if (values.length === 0) fail(`the grid's parameter ${name} has no values; give it at least one (--param ${name}=V1,V2)`);
    count *= values.length;
  }
  if (count > MAX_COMBINATIONS) fail(`the grid makes ${count} combinations of params, more than ${MAX_COMBINATIONS}; try fewer values`);
  let overrides: Array<Record<string, ParamValue>> = [{}];
  for (const [name, values] of Object.entries(grid)) overrides = overrides.flatMap((each) => values.map((value) => ({ ...each, [name]: value })));
  const combinations: Combination[] = [];
  const seen = new Set<string>();
  for (const each of overrides) {
    let params: Params;
    try {
      params = world.resolveParams(each);
    } catch (error) {
      return fail(`${messageOf(error)}; fix the grid (--param NAME=V1,V2 on the command line)`);
    }
    const key = paramsKey(params);
    // Two grid values that read the same ("2" and "2.0") would run one job twice.
    if (seen.has(key)) fail(`the grid gives the same params twice (${key}); list each value once`);
    seen.add(key);
    combinations.push({ overrides: each, params, key });
  }
  return new JobPlan(world, combinations, seeds, agents);
}

function refused(world: World, overrides: Readonly<Record<string, ParamValue>>, seed: number, error: unknown, place: string): CapsuleError {
  const values = Object.entries(overrides).map(([name, value]) => `${name}=${String(value)}`);
  const reason = messageOf(error).split('\n', 1)[0];
  return new CapsuleError(
    'AICC_INVALID_OPTION',
    values.length === 0
      ? `${place}: the world ${JSON.stringify(world.name)} does not set up with its default params (its setup with seed ${seed} threw: ${reason}); fix the world, or give values it takes (--param)`
      : `${place}: the world ${JSON.stringify(world.name)} refuses ${values.join(', ')} (its setup with seed ${seed} threw: ${reason}); change or drop the value it refuses (${values
          .map((value) => `--param ${value.split('=', 1)[0]}=…`)
          .join(' ')})`,
  );
}
