import { describe, expect, it } from 'vitest';
import { runEpisode } from '../../src/research/episode.js';
import { villageWorld } from '../../src/worlds/index.js';

describe('the village as a research world', () => {
  it('meets every goal on a full day, as the demo does', async () => {
    const summary = await runEpisode(villageWorld, { seed: 7 });
    expect(summary.stop).toBe('goals_met');
    expect(summary.metrics).toMatchObject({ goalsMet: 3, pieBaked: 1, tradeDone: 1, balladLeft: 1 });
    expect(summary.scores).toEqual({ ada: 1, bram: 1, cleo: 1 });
    expect(summary.metrics.lastGoalTick).toBeGreaterThan(100);
  });

  it('differs in outcome by seed when the day is short', async () => {
    const outcomes = [];
    for (let seed = 1; seed <= 12; seed++) outcomes.push(await runEpisode(villageWorld, { seed, params: { dayTicks: 195 } }));
    const stops = new Set(outcomes.map((summary) => summary.stop));
    expect(stops).toEqual(new Set(['goals_met', 'nightfall']));
    for (const summary of outcomes) expect(summary.ticks).toBeLessThanOrEqual(195);
  });

  it('has no pie when the orchard holds a single apple', async () => {
    const summary = await runEpisode(villageWorld, { seed: 7, params: { apples: 1, dayTicks: 400 } });
    expect(summary).toMatchObject({ stop: 'nightfall', ticks: 400, metrics: { pieBaked: 0 } });
    expect(summary.scores.ada).toBe(0);
  });

  it('hashes the same state for the same seed and another for another', async () => {
    const [a, b, c] = [await runEpisode(villageWorld, { seed: 3 }), await runEpisode(villageWorld, { seed: 3 }), await runEpisode(villageWorld, { seed: 4 })];
    expect(a.stateHash).toBe(b.stateHash);
    expect(c.stateHash).not.toBe(a.stateHash);
  });

  it('refuses knobs out of range', async () => {
    await expect(runEpisode(villageWorld, { seed: 1, params: { apples: 9 } })).rejects.toThrow(/apples must be from 0 to 3, got 9/);
    await expect(runEpisode(villageWorld, { seed: 1, params: { dayTicks: 0 } })).rejects.toThrow(/dayTicks must be a whole number >= 1/);
  });
});
