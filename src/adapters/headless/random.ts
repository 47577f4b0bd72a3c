// A seeded random source for headless runs: sfc32 (Chris Doty-Humphrey's Small Fast Counter, as in
// PractRand), seeded through the cyrb128 string hash. Not cryptographic — it exists so that the same
// seed replays the same world, the same agent choices and the same session and message ids.
//
// Streams are split by label with `fork`, never by drawing order: the world, each agent and the id
// source each get their own stream, so adding a draw in one place does not shift every other one.

import type { RandomBytes } from '../../protocol/ids.js';

/** A seed: a number or a string. A number is hashed by its decimal text, so `42` and `'42'` agree. */
export type Seed = number | string;

const TWO_POW_32 = 4294967296;

/**
 * cyrb128 (bryc, public domain): a 128-bit hash of a string, used here only to turn any seed or
 * label into four well-mixed 32-bit words for sfc32's state.
 */
export function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export class SeededRandom {
  /** The text this stream was hashed from: the seed, then `/label` for each fork on the way. */
  readonly seed: string;
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Seed) {
    if (typeof seed === 'number' ? !Number.isFinite(seed) : typeof seed !== 'string') {
      throw new TypeError(`SeededRandom: the seed must be a finite number or a string, got ${String(seed)}`);
    }
    this.seed = String(seed);
    [this.a, this.b, this.c, this.d] = cyrb128(this.seed);
  }

  /** The next 32-bit unsigned integer of the stream (the sfc32 step). */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A number in [0, 1) with 32 bits of randomness. */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /** A whole number in [0, maxExclusive). */
  int(maxExclusive: number): number {
    if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > TWO_POW_32) {
      throw new RangeError(`SeededRandom.int: maxExclusive must be a whole number from 1 to 2^32, got ${maxExclusive}`);
    }
    return Math.floor(this.next() * maxExclusive);
  }

  /** One of the items, each equally likely. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('SeededRandom.pick: the list is empty; there is nothing to pick');
    return items[this.int(items.length)]!;
  }

  /** A shuffled copy (Fisher–Yates); the input is left as it was. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const held = out[i]!;
      out[i] = out[j]!;
      out[j] = held;
    }
    return out;
  }

  /**
   * An independent stream derived from this stream's seed and the label — not from its current
   * state, so a fork is the same whatever was drawn before it.
   */
  fork(label: string): SeededRandom {
    return new SeededRandom(`${this.seed}/${label}`);
  }

  /**
   * Fills a buffer from this stream: pass it as a capsule's or an AgentClient's `randomBytes` so
   * session and message ids are reproducible. Bound, so it can be handed around on its own. Give it
   * a stream of its own (`random.fork('ids').bytes`) so ids do not shift the world's draws.
   */
  readonly bytes: RandomBytes = (target) => {
    let word = 0;
    for (let i = 0; i < target.length; i++) {
      if ((i & 3) === 0) word = this.uint32();
      target[i] = word & 0xff;
      word >>>= 8;
    }
  };
}
