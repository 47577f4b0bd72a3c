// The seeds of a sweep, kept as ranges: `1..1000000` is two numbers, not a million, so a big sweep
// is planned without listing it. Read from the command line's text (`1..200`, `1,5,9`, `1..10,20`,
// negative seeds too) or from a list of numbers, and checked once, before anything runs: each seed a
// whole number within ±(2^53 - 1) (past it numbers skip and collide, and a range never ends), each
// listed once, and at most MAX_SEEDS of them.

import { CapsuleError } from '../../base/errors.js';
import { MAX_SEEDS } from '../../research/sweepPlan.js';

type Range = readonly [from: number, to: number];

export class SeedList implements Iterable<number> {
  /** The ranges in the order they were listed; a lone seed is a range of one. */
  readonly ranges: readonly Range[];
  /** How many seeds in all. */
  readonly size: number;
  /** The ranges by their first seed, for `has`. */
  private readonly sorted: readonly Range[];

  private constructor(ranges: readonly Range[], name: string) {
    const fail = (message: string): never => {
      throw new CapsuleError('AICC_INVALID_OPTION', `${name} ${message}`);
    };
    if (ranges.length === 0) fail('names no seeds; give some, like 1..200');
    let size = 0;
    for (const [from, to] of ranges) size += to - from + 1;
    if (size > MAX_SEEDS) fail(`names ${size} seeds, more than the ${MAX_SEEDS} one sweep may run; split it into several sweeps`);
    const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) {
      const [before, range] = [sorted[i - 1]!, sorted[i]!];
      if (range[0] <= before[1]) fail(`lists seed ${range[0]} twice (in ${text(before)} and in ${text(range)}); list each seed once`);
    }
    this.ranges = ranges;
    this.size = size;
    this.sorted = sorted;
  }

  /** Seeds from text like `1..200,300`; complaints begin with `name` (e.g. `--seeds`). */
  static parse(source: string, name = 'seeds'): SeedList {
    const ranges: Range[] = [];
    for (const part of source.split(',')) {
      const match = /^\s*(-?\d+)\s*(?:\.\.\s*(-?\d+)\s*)?$/.exec(part);
      if (match === null)
        throw new CapsuleError(
          'AICC_INVALID_OPTION',
          `${name} takes whole numbers and upward ranges, like 1..200, 1,5,9 or 1..10,20; got ${JSON.stringify(part)}`,
        );
      const from = seed(match[1]!, name);
      const to = match[2] === undefined ? from : seed(match[2], name);
      if (to < from) throw new CapsuleError('AICC_INVALID_OPTION', `${name} has the range ${part.trim()}, which goes downwards; write ${to}..${from}`);
      ranges.push([from, to]);
    }
    return new SeedList(ranges, name);
  }

  /** Seeds from a list, in its order; a run of consecutive seeds is kept as one range. */
  static of(seeds: readonly number[], name = 'seeds'): SeedList {
    const ranges: Array<[number, number]> = [];
    for (const value of seeds) {
      if (!Number.isSafeInteger(value)) {
        throw new CapsuleError(
          'AICC_INVALID_OPTION',
          `${name} must be whole numbers from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${String(value)}`,
        );
      }
      const last = ranges.at(-1);
      if (last !== undefined && value === last[1] + 1) last[1] = value;
      else ranges.push([value, value]);
    }
    return new SeedList(ranges, name);
  }

  /** The first seed listed. */
  get first(): number {
    return this.ranges[0]![0];
  }

  has(seed: number): boolean {
    let [low, high] = [0, this.sorted.length - 1];
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [from, to] = this.sorted[middle]!;
      if (seed < from) high = middle - 1;
      else if (seed > to) low = middle + 1;
      else return true;
    }
    return false;
  }

  *[Symbol.iterator](): Iterator<number> {
    for (const [from, to] of this.ranges) for (let seed = from; seed <= to; seed++) yield seed;
  }
}

/** One seed of the text, refused past ±(2^53 - 1). */
function seed(digits: string, name: string): number {
  const value = Number(digits);
  if (Number.isSafeInteger(value)) return value;
  const [side, bound] = value < 0 ? ['smallest', -Number.MAX_SAFE_INTEGER] : ['largest', Number.MAX_SAFE_INTEGER];
  throw new CapsuleError(
    'AICC_INVALID_OPTION',
    `${name} names ${digits}, beyond the ${side} seed ${bound} (${value < 0 ? '-(2^53 - 1)' : '2^53 - 1'}); past it whole numbers skip and collide, so keep seeds within it`,
  );
}

function text([from, to]: Range): string {
  return from === to ? String(from) : `${from}..${to}`;
}
