// What the capsule run and the bare loop share besides the world and the brains: the world's
// settings with their defaults, and the shape of the swarm's final state.

import type { Seed } from '../../adapters/headless/random.js';
import type { ForagerBrain } from './policy.js';
import { foragerName } from './names.js';
import type { SwarmWorld, WorldConfig } from './world.js';

export interface WorldOptions {
  seed?: Seed;
  /** Default 128. */
  foragers?: number;
  /** Cells along each side. Default 64. */
  size?: number;
  /** Share of cells holding food at the start. Default 0.2. */
  foodDensity?: number;
  /** Cells tried for regrowth each tick. Default: one per 256 cells of the grid (16 on 64×64). */
  regrowPerTick?: number;
  /** Default 10. */
  tickRateHz?: number;
}

/** The swarm at the end of a run: the world's state and each forager's record. */
export interface SwarmState {
  tick: number;
  totalEaten: number;
  foodLeft: number;
  foragers: Array<{ character: string; eaten: number; x: number; y: number; decisions: number; heard: number }>;
}

export function worldConfig(options: WorldOptions): WorldConfig {
  const size = options.size ?? 64;
  return {
    size,
    foragers: options.foragers ?? 128,
    foodDensity: options.foodDensity ?? 0.2,
    regrowPerTick: options.regrowPerTick ?? Math.max(1, Math.round((size * size) / 256)),
  };
}

export function swarmState(tick: number, world: SwarmWorld, minds: ReadonlyArray<{ brain: ForagerBrain; heard: number }>): SwarmState {
  return {
    tick,
    totalEaten: world.totalEaten,
    foodLeft: world.foodLeft(),
    foragers: minds.map(({ brain, heard }, i) => ({
      character: foragerName(i),
      eaten: world.eaten[i]!,
      x: world.xs[i]!,
      y: world.ys[i]!,
      decisions: brain.decisions,
      heard,
    })),
  };
}
