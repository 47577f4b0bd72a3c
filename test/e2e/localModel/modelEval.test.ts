// A real language model compared with the village's own villagers by `runEval`: the model plays Cleo
// on worker threads against the small instruct model served on 127.0.0.1. What is asserted is the
// eval's protocol — every episode in the results file once, the model's decisions measured with the
// server's own token counts, its calls counted and refusals classified, any failure of the agent
// recorded with its kind — never what a small model chooses or whether it meets Cleo's goal.

import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runEval } from '../../../src/node/eval/runEval.js';
import { episodeKey } from '../../../src/research/sweepPlan.js';
import { rawEpisodes, requireBuiltWorker, tempFolder } from '../../node/sweep/helpers.js';
import { describeWithLocalModel, type LocalModel, startLocalModel } from '../../support/localModel/index.js';

await describeWithLocalModel('a real local model in an eval beside the village’s own policy', () => {
  let model: LocalModel;
  beforeAll(async () => {
    requireBuiltWorker();
    model = await startLocalModel();
  }, 300_000);
  afterAll(() => model?.stop());

  it('runs two seeds each on one thread: the model decides, is measured and counted, and the eval completes', async () => {
    const out = join(tempFolder(), 'eval.jsonl');
    const result = await runEval({
      world: 'village',
      agents: ['world=policy:world', `smol=model:local/${model.modelId}@${model.baseUrl}`],
      roles: ['cleo'],
      seeds: '1..2',
      maxTicks: 60,
      // Short answers: each token is ~45 ms on one thread, and a call fits in a few dozen.
      maxTokens: 48,
      out,
      workers: 1,
    });
    expect([result.jobs, result.ran, result.missing.length]).toEqual([4, 4, 0]);
    expect(rawEpisodes(out).map(episodeKey).sort()).toEqual(result.episodes.map(episodeKey).sort());
    const smol = result.episodes.filter((episode) => episode.agent === 'smol');
    expect(smol).toHaveLength(2);
    for (const episode of smol) {
      if (episode.failure !== undefined) expect(['crashed', 'hung', 'garbage', 'disconnected']).toContain(episode.failure.kind);
      expect(episode.decisions).toBeGreaterThan(0);
      // The server's own counts, per decision.
      expect(episode.tokens.input).toBeGreaterThan(0);
      expect(episode.tokens.output).toBeGreaterThan(0);
      expect(episode.decisionMs).toHaveLength(episode.decisions);
      expect(episode.timeline.decisions).toHaveLength(episode.decisions);
      // What reached the capsule is counted, refused or not, by tool and by code.
      expect(Object.values(episode.roleCalls.byTool).reduce((a, b) => a + b, 0)).toBe(episode.roleCalls.total);
      expect(Object.values(episode.roleRefusals.byCode).reduce((a, b) => a + b, 0)).toBe(episode.roleRefusals.total);
    }
    const row = result.summary.rows.find((each) => each.agent === 'smol')!;
    expect(row.latencyMs!.decisions).toBe(smol.reduce((sum, episode) => sum + episode.decisions, 0));
    expect(row.latencyMs!.p95).toBeGreaterThanOrEqual(row.latencyMs!.p50);
    expect(result.summary.comparisons).toHaveLength(1);
    process.stderr.write(
      `local model eval: ${smol.map((e) => `seed ${e.seed}: ${e.decisions} decisions, ${e.roleCalls.total} calls (${e.roleRefusals.total} refused), ${e.tokens.input}+${e.tokens.output} tokens${e.failure ? `, ${e.failure.kind}` : ''}`).join('; ')}; latency p50 ${Math.round(row.latencyMs!.p50)} ms, p95 ${Math.round(row.latencyMs!.p95)} ms\n`,
    );
  }, 900_000);
});
