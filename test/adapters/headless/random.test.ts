import { describe, expect, it } from 'vitest';
import { cyrb128, SeededRandom } from '../../../src/adapters/headless/random.js';
import { randomUuid } from '../../../src/protocol/ids.js';

const draws = (random: SeededRandom, count: number): number[] => Array.from({ length: count }, () => random.next());

describe('SeededRandom', () => {
  it('gives the published sfc32 + cyrb128 sequence for a seed (regression pin)', () => {
    // Checked against bryc's reference sfc32(...cyrb128('42')); a change here breaks every saved run.
    expect(cyrb128('42')).toEqual([2814168319, 14930478, 1039855864, 944835771]);
    expect(draws(new SeededRandom(42), 5)).toEqual([0.8786876145750284, 0.40245301905088127, 0.39786360948346555, 0.5280246422626078, 0.5700749065726995]);
    const words = new SeededRandom('aicc');
    expect([words.uint32(), words.uint32(), words.uint32(), words.uint32()]).toEqual([1402480683, 3455266550, 1872655400, 3848367898]);
  });

  it('hashes a number seed by its text, so 42 and "42" are one seed', () => {
    expect(draws(new SeededRandom('42'), 3)).toEqual(draws(new SeededRandom(42), 3));
    expect(new SeededRandom(42).seed).toBe('42');
  });

  it('repeats the same sequence for the same seed and another for another seed', () => {
    expect(draws(new SeededRandom('run-7'), 100)).toEqual(draws(new SeededRandom('run-7'), 100));
    expect(draws(new SeededRandom('run-7'), 10)).not.toEqual(draws(new SeededRandom('run-8'), 10));
  });

  it('next() stays in [0, 1)', () => {
    const values = draws(new SeededRandom(3), 10_000);
    expect(values.filter((value) => !(value >= 0 && value < 1))).toEqual([]);
  });

  it('int(n) stays within 0..n-1 and hits every value about equally', () => {
    const random = new SeededRandom('dice');
    const counts = new Array<number>(6).fill(0);
    const outside: number[] = [];
    for (let i = 0; i < 60_000; i++) {
      const value = random.int(6);
      if (Number.isInteger(value) && value >= 0 && value < 6) counts[value]!++;
      else outside.push(value);
    }
    expect(outside).toEqual([]);
    // 10,000 expected each; the standard deviation is about 91, so ±600 never fails by chance.
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(600);
    expect(random.int(1)).toBe(0);
  });

  it('refuses an int bound that is not a whole number from 1 to 2^32', () => {
    const random = new SeededRandom(1);
    for (const bad of [0, -1, 2.5, Number.NaN, 2 ** 32 + 1]) expect(() => random.int(bad)).toThrow(/SeededRandom\.int: maxExclusive/);
  });

  it('pick() returns one of the items and refuses an empty list', () => {
    const random = new SeededRandom(5);
    const items = ['a', 'b', 'c'] as const;
    const seen = new Set(Array.from({ length: 100 }, () => random.pick(items)));
    expect([...seen].sort()).toEqual(['a', 'b', 'c']);
    expect(() => random.pick([])).toThrow(/empty/);
  });

  it('shuffle() returns a new permutation and leaves the input alone', () => {
    const input = Array.from({ length: 20 }, (_, i) => i);
    const shuffled = new SeededRandom(9).shuffle(input);
    expect(input).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(shuffled).not.toBe(input);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(input);
    expect(shuffled).not.toEqual(input);
    expect(new SeededRandom(9).shuffle(input)).toEqual(shuffled);
  });

  it('fork() streams depend on the seed and the label only, not on draws made before', () => {
    const a = new SeededRandom(11);
    const b = new SeededRandom(11);
    draws(b, 57);
    expect(draws(a.fork('world'), 5)).toEqual(draws(b.fork('world'), 5));
    expect(a.fork('world').seed).toBe('11/world');
    expect(a.fork('x').fork('y').seed).toBe('11/x/y');
  });

  it('fork() streams are independent of each other and of the parent', () => {
    const root = new SeededRandom(11);
    const world = draws(root.fork('world'), 1000);
    const agent = draws(root.fork('agent 0'), 1000);
    const parent = draws(new SeededRandom(11), 1000);
    expect(world).not.toEqual(agent);
    expect(world).not.toEqual(parent);
    // Independent streams: no shared values, and about uncorrelated.
    expect(world.filter((value) => agent.includes(value))).toEqual([]);
    expect(Math.abs(correlation(world, agent))).toBeLessThan(0.1);
    // Drawing from one fork does not move another.
    const forkA = root.fork('a');
    const forkB = root.fork('b');
    const before = draws(root.fork('b'), 3);
    draws(forkA, 100);
    expect(draws(forkB, 3)).toEqual(before);
  });

  it('bytes fills a buffer reproducibly, so seeded ids repeat', () => {
    const fill = new SeededRandom(42).bytes;
    const buffer = new Uint8Array(6);
    fill(buffer);
    expect([...buffer]).toEqual([232, 171, 241, 224, 59, 41]);
    expect(randomUuid(new SeededRandom('ids').bytes)).toBe(randomUuid(new SeededRandom('ids').bytes));
    expect(randomUuid(new SeededRandom('ids').bytes)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses a seed that is neither a finite number nor a string', () => {
    expect(() => new SeededRandom(Number.NaN)).toThrow(/SeededRandom: the seed/);
    expect(() => new SeededRandom({} as unknown as string)).toThrow(/SeededRandom: the seed/);
  });
});

function correlation(xs: number[], ys: number[]): number {
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const y = ys[i]!;
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}
