// A sweep made ready to run, the same for worker threads and for a queue: the world loaded, the plan
// made (which checks every param against the world), the results file read. Every mistake a user
// can fix by changing the options is found here, before a thread starts or a job is queued.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CapsuleError } from '../../base/errors.js';
import { planSweep, type SweepJob } from '../../research/sweepPlan.js';
import type { World } from '../../research/world.js';
import { BUILT_IN_WORLDS, loadWorld } from './loadWorld.js';
import { readResults, type ReadResults } from './resultsFile.js';
import type { SweepOptions } from './sweepResult.js';

/** A checked sweep, ready to run: the world, its plan and what the results file already holds. */
export interface PreparedSweep {
  world: World;
  plan: SweepJob[];
  held: ReadResults;
}

/**
 * Loads the world, plans the sweep (which checks every param against the world) and reads the
 * results file. Every mistake a user can fix by changing the options throws here, before a thread
 * starts: an unknown world or param, bad seeds, a results file that holds episodes without `resume`.
 */
export async function prepareSweep(options: SweepOptions, place = 'runSweep'): Promise<PreparedSweep> {
  for (const [name, value] of [
    ['maxTicks', options.maxTicks],
    ['hashEvery', options.hashEvery],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: ${name} must be a whole number >= 1, got ${value}`);
  }
  if (typeof options.out !== 'string' || options.out === '')
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: out must name the results file (one JSON line per episode)`);
  const world = await loadWorld(options.world);
  const plan = planSweep(world, options.seeds, options.grid);
  if (options.resume !== true && existsSync(options.out) && statSync(options.out).size > 0) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: ${options.out} is not empty; resume to keep its episodes and run only the missing ones (--resume), or name a new results file`,
    );
  }
  return { world, plan, held: readResults(options.out) };
}

/** The world as a worker must be told it: a built-in name as is, a module path made absolute (a worker may not share our cwd). */
export function workerWorld(spec: string, cwd: string = process.cwd()): string {
  return BUILT_IN_WORLDS.includes(spec) || spec.startsWith('file:') ? spec : resolve(cwd, spec);
}
