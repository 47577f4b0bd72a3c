import { describe, expect, it } from 'vitest';
import { quantile, summarizeEval, tInterval, wilson } from '../../../src/node/eval/evalSummary.js';
import { formatEvalSummary } from '../../../src/node/eval/formatEval.js';
import { FIXTURE_AGENTS, makeEpisode } from './fixtures.js';

describe('the eval summary statistics', () => {
  it("gives Wilson's interval as the textbooks do, sound at 0 and 1", () => {
    // Newcombe (1998), table I: 3 of 10 → 0.1078–0.6032; 0 of 10 → 0–0.2775.
    const three = wilson(3, 10);
    expect(three.mean).toBe(0.3);
    expect(three.low).toBeCloseTo(0.1078, 4);
    expect(three.high).toBeCloseTo(0.6032, 4);
    expect([wilson(0, 10).low, wilson(0, 10).high]).toEqual([0, expect.closeTo(0.2775, 4)]);
    expect([wilson(10, 10).low, wilson(10, 10).high]).toEqual([expect.closeTo(0.7225, 4), 1]);
    expect(wilson(0, 0)).toEqual({ mean: 0, low: 0, high: 1, n: 0 });
  });

  it("gives Student's t interval of a mean, and a single value's as itself", () => {
    // mean 3, sd √2.5, t(0.975, 4) = 2.7764: 3 ± 1.9632.
    const interval = tInterval([1, 2, 3, 4, 5]);
    expect(interval.mean).toBe(3);
    expect(interval.low).toBeCloseTo(1.0368, 4);
    expect(interval.high).toBeCloseTo(4.9632, 4);
    expect(tInterval([7])).toEqual({ mean: 7, low: 7, high: 7, n: 1 });
  });

  it('takes quantiles between ranks (type 7)', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.95)).toBeCloseTo(3.85, 10);
    expect(quantile([5], 0.95)).toBe(5);
  });
});

describe('summarizeEval', () => {
  const [scripted, smol] = FIXTURE_AGENTS;
  const params = { dayTicks: 190 };
  const episodes = [1, 2, 3, 4, 5, 6].flatMap((seed) => [makeEpisode(scripted!, params, seed), makeEpisode(smol!, params, seed)]);
  const summary = summarizeEval({ world: 'village', agents: [scripted!, smol!].map(({ name, spec }) => ({ name, spec })), episodes });

  it('makes one row per agent and params, counting what its episodes hold', () => {
    expect(summary.rows.map((row) => [row.agent, row.episodes])).toEqual([
      ['scripted', 6],
      ['smol', 6],
    ]);
    for (const row of summary.rows) {
      const mine = episodes.filter((episode) => episode.agent === row.agent);
      const successes = mine.filter((episode) => episode.success === 1).length;
      expect(row.success).toEqual(wilson(successes, 6));
      const calls = mine.reduce((sum, episode) => sum + episode.roleCalls.total, 0);
      expect(row.callsPerEpisode).toBe(calls / 6);
      expect(row.refusalsPer100).toBeCloseTo((mine.reduce((sum, episode) => sum + episode.roleRefusals.total, 0) / calls) * 100, 10);
      expect(Object.values(row.callsByTool).reduce((a, b) => a + b, 0)).toBe(calls);
      expect(row.costPerSuccess).toBe(successes === 0 ? null : mine.reduce((sum, episode) => sum + episode.costUsd, 0) / successes);
      const failures = mine.filter((episode) => episode.failure !== undefined).length;
      expect(Object.values(row.failures).reduce((a, b) => a + b, 0)).toBe(failures);
    }
    // A policy makes no model decisions: no latency to show.
    expect(summary.rows[0]!.latencyMs).toBeNull();
    expect(summary.rows[1]!.latencyMs!.decisions).toBe(episodes.filter((e) => e.agent === 'smol').reduce((sum, e) => sum + e.decisionMs.length, 0));
  });

  it("compares each pair on the seeds both ran, with Cohen's h and d", () => {
    const [comparison] = summary.comparisons;
    const rate = (agent: string) => episodes.filter((e) => e.agent === agent && e.success === 1).length / 6;
    expect(comparison).toMatchObject({ a: 'scripted', b: 'smol', pairedSeeds: 6, successDiff: rate('scripted') - rate('smol') });
    expect(comparison!.cohensH).toBeCloseTo(2 * Math.asin(Math.sqrt(rate('scripted'))) - 2 * Math.asin(Math.sqrt(rate('smol'))), 12);
    let aOnly = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const [a, b] = ['scripted', 'smol'].map((agent) => episodes.find((e) => e.agent === agent && e.seed === seed)!.success);
      if (a! > b!) aOnly++;
    }
    expect(comparison!.aOnly).toBe(aOnly);
  });

  it('prints the same table for the same summary, one block per params', () => {
    const text = formatEvalSummary(summary);
    expect(text).toBe(formatEvalSummary(JSON.parse(JSON.stringify(summary))));
    expect(text.split('\n')[0]).toBe('dayTicks=190');
    expect(text).toMatch(/\n {2}scripted +6 +\d+% \(\d+%–\d+%\)/);
    expect(text).toMatch(/\n {2}scripted vs smol: success [+-]\d/);
  });
});
