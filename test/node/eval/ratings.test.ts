// Glicko-2 ratings over an eval's seeds (src/node/eval/ratings.ts): each seed a race among the agents
// that ran it, ranked by score. Who wins more is rated higher, with a deviation that shrinks as the
// seeds add up; draws leave agents level; a seed only one agent ran rates nobody; the same episodes
// in any order give the same ratings; and summarizeEval puts them on its rows.

import { describe, expect, it } from 'vitest';
import { summarizeEval } from '../../../src/node/eval/evalSummary.js';
import { RATING_SETTINGS, rateAgents } from '../../../src/node/eval/ratings.js';
import type { EvalEpisode } from '../../../src/research/evalResult.js';
import { FIXTURE_AGENTS, makeEpisode } from './fixtures.js';

/** An episode of `agent` on `seed` with `score`, the rest of it a fixture's. */
function scored(agent: string, seed: number, score: number): EvalEpisode {
  return { ...makeEpisode(FIXTURE_AGENTS[0]!, { dayTicks: 190 }, seed), agent, agentSpec: `policy:${agent}`, score };
}

describe('rateAgents', () => {
  it('rates higher the agent that scores higher on more seeds, more surely the more seeds there are', () => {
    const seeds = (n: number) =>
      Array.from({ length: n }, (_, i) => i + 1).flatMap((seed) => [
        scored('strong', seed, seed % 4 === 0 ? 1 : 3),
        scored('weak', seed, 2),
        scored('idle', seed, 0),
      ]);
    const few = rateAgents(['strong', 'weak', 'idle'], seeds(4));
    const many = rateAgents(['strong', 'weak', 'idle'], seeds(40));
    for (const ratings of [few, many]) {
      expect(ratings.get('strong')!.value).toBeGreaterThan(ratings.get('weak')!.value);
      expect(ratings.get('weak')!.value).toBeGreaterThan(ratings.get('idle')!.value);
    }
    expect(many.get('strong')!.rd).toBeLessThan(few.get('strong')!.rd);
    expect(few.get('strong')!.rd).toBeLessThan(RATING_SETTINGS.rd);
    expect(many.get('idle')!.seeds).toBe(40);
  });

  it('leaves agents that always draw level at the start, and rates no one on a seed run alone', () => {
    const draws = rateAgents(['a', 'b'], [scored('a', 1, 2), scored('b', 1, 2), scored('a', 2, 0), scored('b', 2, 0), scored('a', 3, 5)]);
    expect(draws.get('a')!.value).toBeCloseTo(RATING_SETTINGS.rating, 6);
    expect(draws.get('b')!.value).toBeCloseTo(RATING_SETTINGS.rating, 6);
    expect(draws.get('a')!.seeds).toBe(2);
    expect(rateAgents(['a', 'b'], [scored('a', 1, 9), scored('b', 2, 0)]).size).toBe(0);
  });

  it('gives the same ratings for the same episodes in any order', () => {
    const episodes = Array.from({ length: 12 }, (_, i) => i + 1).flatMap((seed) => [
      scored('x', seed, seed % 3),
      scored('y', seed, (seed * 7) % 4),
      scored('z', seed, 1),
    ]);
    const shuffled = [...episodes].sort((a, b) => ((a.seed * 31 + a.agent.charCodeAt(0)) % 17) - ((b.seed * 31 + b.agent.charCodeAt(0)) % 17));
    expect(rateAgents(['x', 'y', 'z'], shuffled)).toEqual(rateAgents(['x', 'y', 'z'], episodes));
  });

  it("is on each of summarizeEval's rows, per params combination", () => {
    const episodes = [1, 2, 3].flatMap((seed) => [scored('a', seed, 2), scored('b', seed, 1)]);
    const summary = summarizeEval({
      world: 'village',
      agents: [
        { name: 'a', spec: 'policy:a' },
        { name: 'b', spec: 'policy:b' },
      ],
      episodes,
    });
    const [a, b] = summary.rows;
    expect(a!.rating!.value).toBeGreaterThan(b!.rating!.value);
    expect(a!.rating).toEqual(rateAgents(['a', 'b'], episodes).get('a'));
    const alone = summarizeEval({ world: 'village', agents: [{ name: 'a', spec: 'policy:a' }], episodes: episodes.filter((e) => e.agent === 'a') });
    expect(alone.rows[0]!.rating).toBeNull();
  });
});
