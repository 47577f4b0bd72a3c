import { describe, expect, it } from 'vitest';
import { runEpisode } from '../../src/research/episode.js';
import { swarmWorld } from '../../src/worlds/index.js';

describe('the swarm as a research world', () => {
  it('counts what the foragers ate, each forager’s score being its own meals', async () => {
    const summary = await runEpisode(swarmWorld, { seed: 1, maxTicks: 100 });
    const scores = Object.values(summary.scores);
    expect(scores).toHaveLength(16);
    expect(scores.reduce((a, b) => a + b, 0)).toBe(summary.metrics.totalEaten);
    expect(Math.max(...scores)).toBe(summary.metrics.mostEaten);
    expect(scores.filter((eaten) => eaten === 0)).toHaveLength(summary.metrics.hungry!);
    // A decision starts with a sense; the last ones may still be waiting for their tick when the episode ends.
    expect(summary.calls.byTool.sense).toBeLessThanOrEqual(summary.metrics.decisions!);
    expect(summary.calls.byTool.sense).toBeGreaterThanOrEqual(summary.metrics.decisions! - 16);
    expect(summary.metrics.failures).toBe(0);
  });

  it('eats less where food is scarce, and differs by seed', async () => {
    const eaten = async (foodDensity: number, seed: number) =>
      (await runEpisode(swarmWorld, { seed, maxTicks: 100, params: { foodDensity, regrowPerTick: 0 } })).metrics.totalEaten!;
    const scarce = [await eaten(0.01, 1), await eaten(0.01, 2), await eaten(0.01, 3)];
    const plenty = [await eaten(0.2, 1), await eaten(0.2, 2), await eaten(0.2, 3)];
    expect(Math.max(...scarce)).toBeLessThan(Math.min(...plenty));
    expect(new Set(scarce).size + new Set(plenty).size).toBeGreaterThan(2);
  });

  it('hashes the same state for the same seed', async () => {
    const a = await runEpisode(swarmWorld, { seed: 9, maxTicks: 50 });
    const b = await runEpisode(swarmWorld, { seed: 9, maxTicks: 50 });
    expect(a.stateHash).toBe(b.stateHash);
    expect((await runEpisode(swarmWorld, { seed: 10, maxTicks: 50 })).stateHash).not.toBe(a.stateHash);
  });
});
