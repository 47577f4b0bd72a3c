import { describe, expect, it } from 'vitest';
import { jobId, jobKey, parseSeeds, planSweep } from '../../src/research/sweepPlan.js';
import { counterWorld } from './fixture.js';

describe('planSweep', () => {
  it('runs every combination of the grid with every seed, the first parameter varying slowest', () => {
    const jobs = planSweep(counterWorld, [1, 2], { agents: [1, 2], chance: [0.1, 0.9] });
    expect(jobs.map((job) => [job.params.agents, job.params.chance, job.seed])).toEqual([
      [1, 0.1, 1],
      [1, 0.1, 2],
      [1, 0.9, 1],
      [1, 0.9, 2],
      [2, 0.1, 1],
      [2, 0.1, 2],
      [2, 0.9, 1],
      [2, 0.9, 2],
    ]);
    expect(jobs[0]!.params).toEqual({ ...counterWorld.params, agents: 1, chance: 0.1 });
    expect(new Set(jobs.map((job) => job.key)).size).toBe(8);
  });

  it('keys a job by its resolved params, whatever order or spelling they came in', () => {
    const a = counterWorld.resolveParams({ agents: 2, chance: 0.5 });
    const b = counterWorld.resolveParams({ chance: '0.5', agents: '2' });
    expect(jobKey('counters', a, 3)).toBe(jobKey('counters', b, 3));
    expect(jobId({ world: 'counters', params: a, seed: 3 })).toBe(jobId({ world: 'counters', params: b, seed: 3 }));
    expect(jobId({ world: 'counters', params: a, seed: 3 })).toMatch(/^counters-[0-9a-f]{16}-3$/);
    expect(jobId({ world: 'counters', params: counterWorld.resolveParams({ agents: 3 }), seed: 3 })).not.toBe(jobId({ world: 'counters', params: a, seed: 3 }));
  });

  it('refuses an empty plan, repeated seeds, grid values that read the same and unknown params', () => {
    expect(() => planSweep(counterWorld, [])).toThrow(/no seeds/);
    expect(() => planSweep(counterWorld, [1, 1])).toThrow(/a seed is listed twice/);
    expect(() => planSweep(counterWorld, [1], { agents: ['2', 2] })).toThrow(/the grid gives the same params twice/);
    expect(() => planSweep(counterWorld, [1], { agents: [] })).toThrow(/parameter agents has no values/);
    expect(() => planSweep(counterWorld, [1], { speed: [1] })).toThrow(/no parameter "speed"/);
  });
});

describe('parseSeeds', () => {
  it('reads ranges and lists', () => {
    expect(parseSeeds('1..5')).toEqual([1, 2, 3, 4, 5]);
    expect(parseSeeds('3,1..2, 9')).toEqual([3, 1, 2, 9]);
  });

  it('refuses what it cannot read, and ranges that go down or hold too many seeds', () => {
    expect(() => parseSeeds('1-5')).toThrow(/expected whole numbers or ranges like 1\.\.200, got "1-5"/);
    expect(() => parseSeeds('5..1')).toThrow(/must go upwards/);
    expect(() => parseSeeds('1..100000000')).toThrow(/at most 1000000 seeds/);
  });
});
