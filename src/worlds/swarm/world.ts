// The swarm's world, as plain data and methods: a square grid of cells that hold food or not, the
// foragers' positions, and what each of them has eaten. It knows nothing of the capsule, so the
// same update runs behind the capsule's tools and in the bench's bare loop.

import type { SeededRandom } from '../../adapters/headless/random.js';

// Type aliases rather than interfaces: a tool handler's output must be assignable to JsonObject.
export type Point = { x: number; y: number };

/** What `sense` reports: where the forager stands and the nearest food cells, nearest first. */
export type Sensed = { at: Point; food: Point[] };

export interface WorldConfig {
  /** Cells along each side. */
  size: number;
  foragers: number;
  /** Share of cells holding food at the start, 0..1. */
  foodDensity: number;
  /** Cells tried for regrowth each tick; an empty one grows food. */
  regrowPerTick: number;
}

/** The most food cells one `sense` reports. */
export const MAX_SEEN = 4;
/** Foragers within this many cells of an eaten cell hear of it. */
export const HEARING_RADIUS = 4;

export class SwarmWorld {
  readonly size: number;
  /** 1 where a cell holds food, row-major (y * size + x). */
  readonly food: Uint8Array;
  readonly xs: Int32Array;
  readonly ys: Int32Array;
  readonly eaten: Int32Array;
  totalEaten = 0;
  private readonly regrowPerTick: number;

  /** `random` is the world's own stream: the layout, then regrowth, draw from it alone. */
  constructor(
    config: WorldConfig,
    private readonly random: SeededRandom,
  ) {
    const { size, foragers } = config;
    if (!Number.isInteger(size) || size < 2) throw new RangeError(`SwarmWorld: size must be a whole number >= 2, got ${size}`);
    if (!Number.isInteger(foragers) || foragers < 1) throw new RangeError(`SwarmWorld: foragers must be a whole number >= 1, got ${foragers}`);
    this.size = size;
    this.regrowPerTick = config.regrowPerTick;
    this.food = new Uint8Array(size * size);
    for (let i = 0; i < this.food.length; i++) this.food[i] = random.next() < config.foodDensity ? 1 : 0;
    this.xs = new Int32Array(foragers);
    this.ys = new Int32Array(foragers);
    this.eaten = new Int32Array(foragers);
    for (let i = 0; i < foragers; i++) {
      this.xs[i] = random.int(size);
      this.ys[i] = random.int(size);
    }
  }

  get foragers(): number {
    return this.xs.length;
  }

  at(forager: number): Point {
    return { x: this.xs[forager]!, y: this.ys[forager]! };
  }

  /**
   * The nearest food within `radius` (king-move distance, the distance `move` covers), ring by
   * ring outwards, each ring in reading order, at most MAX_SEEN cells.
   */
  sense(forager: number, radius: number): Sensed {
    const cx = this.xs[forager]!;
    const cy = this.ys[forager]!;
    const size = this.size;
    const food: Point[] = [];
    for (let d = 0; d <= radius && food.length < MAX_SEEN; d++) {
      for (let y = cy - d; y <= cy + d; y++) {
        if (y < 0 || y >= size) continue;
        // Inside the ring's top and bottom rows every cell is on the ring; between them only the ends.
        const step = y === cy - d || y === cy + d ? 1 : Math.max(1, 2 * d);
        for (let x = cx - d; x <= cx + d; x += step) {
          if (x >= 0 && x < size && this.food[y * size + x] === 1) food.push({ x, y });
        }
      }
    }
    return { at: { x: cx, y: cy }, food: food.slice(0, MAX_SEEN) };
  }

  /** One step; the grid's edge is a wall. Returns where the forager now stands. */
  move(forager: number, dx: number, dy: number): Point {
    const x = clamp(this.xs[forager]! + Math.sign(dx), this.size);
    const y = clamp(this.ys[forager]! + Math.sign(dy), this.size);
    this.xs[forager] = x;
    this.ys[forager] = y;
    return { x, y };
  }

  /** Eats the food under the forager, if any. */
  eat(forager: number): { ate: boolean; eaten: number } {
    const cell = this.ys[forager]! * this.size + this.xs[forager]!;
    if (this.food[cell] !== 1) return { ate: false, eaten: this.eaten[forager]! };
    this.food[cell] = 0;
    this.totalEaten++;
    return { ate: true, eaten: ++this.eaten[forager]! };
  }

  /** The other foragers within `radius` of one (king-move distance), in index order. */
  neighbours(forager: number, radius: number): number[] {
    const cx = this.xs[forager]!;
    const cy = this.ys[forager]!;
    const out: number[] = [];
    for (let i = 0; i < this.xs.length; i++) {
      if (i !== forager && Math.abs(this.xs[i]! - cx) <= radius && Math.abs(this.ys[i]! - cy) <= radius) out.push(i);
    }
    return out;
  }

  /** Once a tick: a few random cells regrow food. */
  regrow(): void {
    for (let n = 0; n < this.regrowPerTick; n++) this.food[this.random.int(this.food.length)] = 1;
  }

  foodLeft(): number {
    let count = 0;
    for (const cell of this.food) count += cell;
    return count;
  }
}

function clamp(value: number, size: number): number {
  return value < 0 ? 0 : value >= size ? size - 1 : value;
}
