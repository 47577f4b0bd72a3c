// How a forager decides, apart from how it talks: when it starts a decision, and which action a
// sensing leads to. The scripted agents (agent.ts) and the bench's bare loop (bare.ts) share it, so
// both make the same decisions at the same ticks.
//
// The cadence. A forager stands for a small on-device model (edge_medium: about 250 ms for a full
// response). It hears news every tick (at 10 Hz the capsule delivers to an edge_medium agent every
// tick: a quarter of its budget is shorter than a tick), but it starts a decision only when its own
// decision time has passed since the last one — 200 to 400 ms, drawn once per forager, so the
// population is not in lockstep. A decision is observe-then-act: `sense`, then `move` or `eat` from
// what it saw. In fixed tick mode each call runs at the next tick, so a decision spans two ticks; a
// forager thus decides every 2 to 4 ticks (about 3.4 on average): some 3 decisions and 6 calls a
// second of world time each, about 76 calls a tick for 128 foragers.

import type { SeededRandom } from '../../adapters/headless/random.js';
import type { Point, Sensed } from './world.js';

export type Action = { tool: 'eat'; input: Record<string, never> } | { tool: 'move'; input: { dx: number; dy: number } };

/** How far a forager senses, in cells. */
export const SENSE_RADIUS = 4;
/** Decision time of the quickest and the slowest forager, in ms of world time. */
export const DECISION_MS = { min: 200, max: 400 } as const;

const WANDER: ReadonlyArray<{ dx: number; dy: number }> = [
  { dx: -1, dy: -1 },
  { dx: 0, dy: -1 },
  { dx: 1, dy: -1 },
  { dx: -1, dy: 0 },
  { dx: 1, dy: 0 },
  { dx: -1, dy: 1 },
  { dx: 0, dy: 1 },
  { dx: 1, dy: 1 },
];

/** One forager's mind: its decision time, its state between calls, and its choices. */
export class ForagerBrain {
  readonly decisionMs: number;
  decisions = 0;
  private lastDecisionAt = -Infinity;
  /** News from this tick on finds the forager free again. */
  private freeFromTick = 0;

  /**
   * `random` is this forager's own stream: its decision time, then its wandering, draw from it.
   * `chase` false makes a wanderer: it eats where it stands, but walks past the food it sees.
   */
  constructor(
    private readonly random: SeededRandom,
    private readonly chase = true,
  ) {
    this.decisionMs = DECISION_MS.min + random.int(DECISION_MS.max - DECISION_MS.min + 1);
  }

  /**
   * News of a tick: true when the forager starts a decision now (and should `sense`). Freedom is
   * judged by tick numbers, not by when a result's promise settles, so the choice does not depend
   * on the order in which in-process agents happen to run.
   */
  startsDecision(tick: number, timeMs: number): boolean {
    if (tick < this.freeFromTick || timeMs - this.lastDecisionAt < this.decisionMs) return false;
    this.lastDecisionAt = timeMs;
    this.freeFromTick = Infinity;
    this.decisions++;
    return true;
  }

  /**
   * What the sensing made at `tick` leads to: eat where it stands on food, else step towards one
   * of the nearest food cells, else wander. The action runs at the next tick; from then on the
   * forager is free.
   */
  choose(sensed: Sensed, tick: number): Action {
    this.freeFromTick = tick + 1;
    const { at, food } = sensed;
    const first = food[0];
    if (first === undefined) return { tool: 'move', input: { ...this.random.pick(WANDER) } };
    const nearest = distance(at, first);
    if (nearest === 0) return { tool: 'eat', input: {} };
    if (!this.chase) return { tool: 'move', input: { ...this.random.pick(WANDER) } };
    // A tie is broken by the forager's own draw: two foragers in one cell see the same food, and
    // without it they would make the same moves for ever, a herd racing itself for every meal.
    const ties = food.filter((cell) => distance(at, cell) === nearest);
    const target = ties.length === 1 ? first : this.random.pick(ties);
    return { tool: 'move', input: { dx: Math.sign(target.x - at.x), dy: Math.sign(target.y - at.y) } };
  }

  /** A call was refused: give up this decision and be free at the next news. */
  abandon(): void {
    this.freeFromTick = 0;
  }
}

/** King-move distance: the number of `move` steps between two cells. */
function distance(a: Point, b: Point): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));
}
