// A sweep made ready to run, the same for worker threads and for a queue: the seeds read, the world
// loaded, the plan made (which checks every param against the world, and can set the world up once
// per combination of them), the results file checked and read. Every mistake a user can fix by
// changing the options is found here, before a thread starts, a job is queued or a file is made or cut.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CapsuleError } from '../../base/errors.js';
import type { World } from '../../research/world.js';
import { type JobPlan, planJobs } from './jobPlan.js';
import { BUILT_IN_WORLDS, loadWorld } from './loadWorld.js';
import { checkResultsPath, readResults, type ReadResults } from './resultsFile.js';
import { SeedList } from './seedList.js';
import type { SweepOptions } from './sweepResult.js';

/** A checked sweep, ready to run: the world, its plan (lazy: jobs are made as they are taken), what the results file holds. */
export interface PreparedSweep {
  world: World;
  plan: JobPlan;
  held: ReadResults;
  /** The plan's jobs the results file lacks. */
  todo: number;
}

export interface PrepareChecks {
  /**
   * Set the world up once per params combination, here: a value its setup refuses is found before
   * the sweep. runSweep and `aicc sweep` (either runner) do. runQueueSweep does not ask for it (yet):
   * its coordinator may be a machine where the world's episodes are not meant to run.
   */
  setUpOnce?: boolean;
  /** An eval's agents under test (checked by the eval): each seed runs once per agent. */
  agents?: ReadonlyArray<{ name: string; spec: string }>;
}

/**
 * Reads the seeds, loads the world, plans the sweep (which checks every param against the world
 * and, with `setUpOnce`, sets the world up once per combination) and reads the results file. Every
 * mistake a user can fix by changing the options throws here, before a thread starts: an unknown
 * world or param, a value the world refuses, bad seeds, a results file that cannot be written or
 * that holds episodes without `resume`.
 */
export async function prepareSweep(options: SweepOptions, place = 'runSweep', checks: PrepareChecks = {}): Promise<PreparedSweep> {
  for (const [name, value] of [
    ['maxTicks', options.maxTicks],
    ['hashEvery', options.hashEvery],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: ${name} must be a whole number >= 1, got ${value}`);
  }
  if (typeof options.out !== 'string' || options.out === '')
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: out must name the results file (one JSON line per episode)`);
  const seeds = typeof options.seeds === 'string' ? SeedList.parse(options.seeds, `${place}: seeds`) : SeedList.of(options.seeds, `${place}: seeds`);
  checkResultsPath(options.out, place);
  if (options.resume !== true && existsSync(options.out) && statSync(options.out).size > 0) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: ${options.out} is not empty; resume to keep its episodes and run only the missing ones (--resume), or name a new results file`,
    );
  }
  const world = await loadWorld(options.world);
  const plan = planJobs(world, seeds, options.grid ?? {}, place, checks.agents);
  if (checks.setUpOnce === true) await plan.checkSetups(place);
  const held = readResults(options.out);
  let heldInPlan = 0;
  for (const episode of held.episodes) if (plan.includes(episode)) heldInPlan++;
  return { world, plan, held, todo: plan.size - heldInPlan };
}

/** The world as a worker must be told it: a built-in name as is, a module path made absolute (a worker may not share our cwd). */
export function workerWorld(spec: string, cwd: string = process.cwd()): string {
  return BUILT_IN_WORLDS.includes(spec) || spec.startsWith('file:') ? spec : resolve(cwd, spec);
}
