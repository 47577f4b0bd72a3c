import { describe, expect, it } from 'vitest';
import { runEpisode } from '../../src/research/episode.js';
import { defineWorld } from '../../src/research/world.js';
import { counterWorld } from './fixture.js';

describe('runEpisode', () => {
  it('runs the world’s agents and returns its metrics, scores, calls and stop reason', async () => {
    const summary = await runEpisode(counterWorld, { seed: 1, params: { eager: true } });
    // Every agent bumps on every tick it hears of (its model class sets how often that is).
    expect(summary).toMatchObject({ world: 'counters', seed: 1, stop: 'tick_limit', ticks: 50 });
    const { c0, c1 } = summary.scores;
    expect(c0).toBeGreaterThan(5);
    expect(c1).toBe(c0);
    expect(summary.metrics).toEqual({ most: c0, total: c0! + c1! });
    expect(summary.calls).toEqual({ total: c0! + c1!, byTool: { bump: c0! + c1! } });
    expect(summary.refusals.total).toBe(0);
    expect(Object.keys(summary.metrics)).toEqual(['most', 'total']);
    expect(summary.stateHash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('stops when the world says so, with its reason', async () => {
    const summary = await runEpisode(counterWorld, { seed: 1, params: { eager: true, goal: 10 } });
    expect(summary.stop).toBe('goal');
    expect(summary.metrics.total).toBeGreaterThanOrEqual(10);
    expect(summary.ticks).toBeLessThan(50);
  });

  it('gives the same summary and hash for the same seed and params, and another for another seed', async () => {
    const strip = ({ wallMs: _, ...rest }: { wallMs: number }) => rest;
    const a = await runEpisode(counterWorld, { seed: 7, hashEvery: 10 });
    const b = await runEpisode(counterWorld, { seed: 7, hashEvery: 10 });
    const c = await runEpisode(counterWorld, { seed: 8, hashEvery: 10 });
    expect(JSON.stringify(strip(a))).toBe(JSON.stringify(strip(b)));
    expect(c.stateHash).not.toBe(a.stateHash);
    expect(a.hashes!.map((entry) => entry.tick)).toEqual([10, 20, 30, 40, 50]);
    expect(a.hashes!.at(-1)!.hash).toBe(a.stateHash);
    // Before the seeds' draws part ways the runs agree; the hashes say from where they do not.
    expect(a.hashes!.some((entry, i) => entry.hash !== c.hashes![i]!.hash)).toBe(true);
  });

  it('disposes the capsule and closes the world after the episode', async () => {
    let disposed = 0;
    let capsuleGone = false;
    const world = defineWorld({
      ...counterWorld,
      setup: async (setup) => {
        const episode = await counterWorld.setup(setup);
        episode.capsule.on('dispose', () => (capsuleGone = true));
        return { ...episode, dispose: () => disposed++ };
      },
    });
    await runEpisode(world, { seed: 1, maxTicks: 3 });
    expect(capsuleGone).toBe(true);
    expect(disposed).toBe(1);
  });

  it('refuses a seed that is not whole, a bad hashEvery and a metric that is not a number', async () => {
    await expect(runEpisode(counterWorld, { seed: 1.5 })).rejects.toThrow(/the seed must be a whole number, got 1.5/);
    await expect(runEpisode(counterWorld, { seed: 1, hashEvery: 0 })).rejects.toThrow(/hashEvery must be a whole number >= 1/);
    const broken = defineWorld({ ...counterWorld, setup: async (setup) => ({ ...(await counterWorld.setup(setup)), metrics: () => ({ ratio: Number.NaN }) }) });
    await expect(runEpisode(broken, { seed: 1, maxTicks: 2 })).rejects.toThrow(/metric "ratio" must be a finite number, got NaN/);
  });
});
