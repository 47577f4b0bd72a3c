import { describe, expect, it } from 'vitest';
import { aggregate, formatAggregate } from '../../src/research/aggregate.js';

const episode = (seed: number, params: Record<string, number>, ticks: number, metrics: Record<string, number>, stop = 'tick_limit') => ({
  seed,
  params,
  ticks,
  metrics,
  stop,
});

describe('aggregate', () => {
  const episodes = [
    episode(2, { a: 1 }, 10, { x: 4 }),
    episode(1, { a: 2 }, 7, { x: 1 }, 'goal'),
    episode(1, { a: 1 }, 20, { x: 2 }),
    episode(3, { a: 1 }, 30, { x: 9 }, 'goal'),
  ];

  it('gives mean, sample sd, min and max per metric and params, and counts the stops', () => {
    const [first, second] = aggregate(episodes);
    expect(first).toEqual({
      params: { a: 1 },
      episodes: 3,
      ticks: { mean: 20, sd: 10, min: 10, max: 30 },
      metrics: { x: { mean: 5, sd: Math.sqrt(13), min: 2, max: 9 } },
      stops: { goal: 1, tick_limit: 2 },
    });
    expect(second).toMatchObject({ params: { a: 2 }, episodes: 1, ticks: { mean: 7, sd: 0 } });
  });

  it('comes out byte-identical whatever order the episodes finished in', () => {
    const floats = Array.from({ length: 50 }, (_, i) => episode(i, { a: 1 }, i, { x: 0.1 * i + 1e-9 * (i % 7) }));
    const all = [...floats];
    const reordered = [...floats.slice(25), ...floats.slice(0, 25)].reverse();
    expect(JSON.stringify(aggregate(reordered))).toBe(JSON.stringify(aggregate(all)));
    expect(formatAggregate(aggregate(reordered))).toBe(formatAggregate(aggregate(all)));
  });

  it('formats a block per params combination', () => {
    const text = formatAggregate(aggregate(episodes));
    expect(text.split('\n')[0]).toBe('a=1: 3 episodes (goal 1, tick_limit 2)');
    expect(text).toContain('  x               5    3.6056         2         9');
    expect(text).toContain('a=2: 1 episode (goal 1)');
  });
});
