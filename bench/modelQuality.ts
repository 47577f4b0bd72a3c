// A measurement, not a test: how well the real local model plays Cleo through the direct backend,
// over several seeds — the share of its tool calls that are well-formed (a known tool, arguments that
// pass the tool's input schema) and the share of refusals followed by a different call. A small
// model is a real model, not a good one: these figures describe it, they assert nothing.
//
//   node --import tsx bench/modelQuality.ts [decisions-per-seed=10] [seeds=1,2,3]
//
// Prints one JSON line per seed and one for all; the bench notebook (bench/README.md) keeps them.

import { runHeadless } from '../src/adapters/headless/runner.js';
import { piAiModel } from '../src/node/model/piAi.js';
import type { ModelTurn } from '../src/agent/model/modelPort.js';
import { modelDrivenCleo, startLocalModel } from '../test/support/localModel/index.js';

const perSeed = Number(process.argv[2] ?? 10);
const seeds = (process.argv[3] ?? '1,2,3').split(',').map(Number);

const model = await startLocalModel();
const totals = { calls: 0, wellFormed: 0, refused: 0, followedByDifferent: 0, decisions: 0, requests: 0, ms: 0 };
try {
  const { turn } = await piAiModel({ provider: 'local', model: model.modelId, baseUrl: model.baseUrl, maxTokens: 128, temperature: 0 });
  for (const seed of seeds) {
    let requests = 0;
    const counted: ModelTurn = (request, options) => {
      requests++;
      return turn(request, options);
    };
    const { village, client, pilot, onTick } = await modelDrivenCleo(counted, { seed, contextBudgetTokens: 1_600 });
    let decisions = 0;
    pilot.on('cost', () => decisions++);
    // Every call the model made, in order, as the capsule judged it (or the backend, for an unknown tool).
    const calls: Array<{ key: string; wellFormed: boolean; ok: boolean }> = [];
    village.capsule.on('call', (event) => {
      if (event.character !== 'cleo') return;
      const code = event.result.ok ? undefined : event.result.error?.code;
      calls.push({ key: `${event.tool} ${JSON.stringify(event.input)}`, wellFormed: code !== 'invalid_input' && code !== 'tool_unknown', ok: event.result.ok });
    });
    const started = performance.now();
    pilot.start();
    await runHeadless({
      capsule: village.capsule,
      ticks: 50_000,
      stopWhen: () => decisions >= perSeed,
      onTick,
    });
    pilot.stop();
    const ms = performance.now() - started;
    const refusals = calls.flatMap((call, i) => (call.ok ? [] : [i]));
    const followed = refusals.filter((i) => i + 1 < calls.length && calls[i + 1]!.key !== calls[i]!.key).length;
    const seedFigures = {
      seed,
      decisions,
      requests,
      calls: calls.length,
      wellFormed: calls.filter((call) => call.wellFormed).length,
      refused: refusals.length,
      followedByDifferent: followed,
      secondsPerRequest: Number((ms / 1000 / Math.max(1, requests)).toFixed(2)),
      first: calls.slice(0, 3).map((call) => call.key),
    };
    console.log(JSON.stringify(seedFigures));
    totals.calls += calls.length;
    totals.wellFormed += seedFigures.wellFormed;
    totals.refused += refusals.length;
    totals.followedByDifferent += followed;
    totals.decisions += decisions;
    totals.requests += requests;
    totals.ms += ms;
    await client.close('measured');
    village.capsule.dispose();
  }
} finally {
  await model.stop();
}
console.log(
  JSON.stringify({
    all: true,
    model: model.modelId,
    ...totals,
    wellFormedShare: totals.calls === 0 ? null : Number((totals.wellFormed / totals.calls).toFixed(3)),
    correctedShare: totals.refused === 0 ? null : Number((totals.followedByDifferent / totals.refused).toFixed(3)),
  }),
);
