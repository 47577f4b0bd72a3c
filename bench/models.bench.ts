// Model-driven runs: what the capsule's side of a model decision costs against the model's own
// time, and how fast a recorded model run replays from its cassette.
//
// Rows and baselines:
// - "our part of a model decision": a piloted Cleo over ModelBackend whose model answers at once
//   (a scripted turn: two tool calls, then text) — the pilot, the backend, the conversation, the
//   gate and the calls through the capsule, per model request — against the real local model's own
//   time for one request of the same conversation (test/support/localModel: SmolLM2-135M, one
//   thread). Target: ours ≤ 2% of the model's. Without the local model the row says so in its note.
// - "cassette replay, 1,000-tick village": `aicc replay` of a 1,000-tick day with Cleo model-driven
//   (recorded from a model that answers at once), world and pilot re-run from the cassette with no
//   model, against recording that same day. Target: ≤ 2 s.

import { runHeadless } from '../src/adapters/headless/runner.js';
import { connectInProcess } from '../src/agent/inProcess.js';
import { ModelBackend } from '../src/agent/model/modelBackend.js';
import type { ModelReply, ModelRequest, ModelTurn } from '../src/agent/model/modelPort.js';
import { ProviderGate } from '../src/agent/model/providerGate.js';
import { Pilot } from '../src/agent/pilot/pilot.js';
import { replayFromCassette } from '../src/node/cli/cassetteReplay.js';
import { modelAgentOf } from '../src/node/cli/modelAgent.js';
import { piAiModel } from '../src/node/model/piAi.js';
import { parseRecording } from '../src/recording/recording.js';
import { runVillage } from '../src/worlds/village/run.js';
import { buildVillage, VILLAGER_SESSION } from '../src/worlds/village/world.js';
import { localModelAvailable, startLocalModel } from '../test/support/localModel/index.js';
import type { BenchOptions, BenchRow } from './row.js';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** A model that answers at once (after the tick it was asked in, as any model does): a look and a line, then text, over and over. */
function instantTurn(): ModelTurn {
  let n = 0;
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    n++;
    const step = n % 3;
    const content: ModelReply['content'] =
      step === 1
        ? [{ type: 'toolCall', id: `c${n}`, name: 'look', arguments: {} }]
        : step === 2
          ? [{ type: 'toolCall', id: `c${n}`, name: 'say', arguments: { text: `Line ${n}.` } }]
          : [{ type: 'text', text: 'I wait.' }];
    return { role: 'assistant', content, usage, stopReason: step === 0 ? 'stop' : 'toolUse', timestamp: 0 };
  };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  return [await decisionShare(options), await cassetteReplay(options)];
}

async function decisionShare(options: BenchOptions): Promise<BenchRow> {
  const decisions = options.quick ? 20 : 200;
  const village = buildVillage(7);
  const client = await connectInProcess(village.capsule, { character: 'cleo', ...VILLAGER_SESSION, agent: { clock: village.clock } });
  let requests = 0;
  const asked: ModelRequest[] = [];
  const scripted = instantTurn();
  const turn: ModelTurn = (request, turnOptions) => {
    requests++;
    asked.push({ ...request, messages: [...request.messages] });
    if (asked.length > 8) asked.shift();
    return scripted(request, turnOptions);
  };
  const backend = new ModelBackend({ client, turn, gate: new ProviderGate({ clock: village.clock }), now: () => village.clock.now() });
  const pilot = new Pilot({ client, backend, clock: village.clock, quietWakeMs: 200, maxDecisionsPerMinute: 10_000, character: { id: 'cleo', name: 'Cleo' } });
  let ended = 0;
  pilot.on('cost', () => ended++);
  pilot.start();
  const started = performance.now();
  await runHeadless({
    capsule: village.capsule,
    ticks: 1_000_000,
    stopWhen: () => ended >= decisions,
    onTick: () => new Promise((resolve) => setImmediate(resolve)),
  });
  const oursPerRequestMs = (performance.now() - started) / requests;
  pilot.stop();
  village.capsule.dispose();

  // A quick run proves the bench runs: starting the model and its first uncached prompt take longer than that.
  const skip = options.quick ? 'in a quick run (npm run bench measures it)' : await localModelAvailable().catch((error: unknown) => String(error));
  if (skip !== undefined || asked.length === 0)
    return {
      name: 'our part of a model decision',
      capsule: oursPerRequestMs,
      baseline: oursPerRequestMs,
      unit: 'ms/request',
      ratio: 1,
      note: `model's part not measured: ${skip}`,
    };
  const model = await startLocalModel();
  try {
    const { turn: real } = await piAiModel({ provider: 'local', model: model.modelId, baseUrl: model.baseUrl, maxTokens: 64, temperature: 0 });
    // The last requests of the run in order, as a run sends them: each one the one before plus its news (the prefix cached, the tail new).
    const times: number[] = [];
    for (const request of asked.slice(options.quick ? -1 : -7)) {
      const t = performance.now();
      await real(request, { signal: new AbortController().signal, onToken: () => {} });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const modelMs = times[times.length >> 1]!;
    return {
      name: 'our part of a model decision',
      capsule: oursPerRequestMs,
      baseline: modelMs,
      unit: 'ms/request',
      ratio: oursPerRequestMs / modelMs,
      note: `pilot + backend + calls per model request vs SmolLM2-135M's own on the run's last requests (median of ${times.length}, one thread, up to 64 tokens out); target ≤ 0.02`,
    };
  } finally {
    await model.stop();
  }
}

/** The villagers a model drives in the cassette row: all three, each on a model of its own. */
const MODEL_DRIVEN = ['ada', 'bram', 'cleo'] as const;

async function cassetteReplay(options: BenchOptions): Promise<BenchRow> {
  const ticks = options.quick ? 200 : 1_000;
  const lines: string[] = [];
  const agents = MODEL_DRIVEN.map((character) => modelAgentOf(() => instantTurn(), 'bench/instant', character));
  const live = performance.now();
  await runVillage({
    ticks,
    record: (line) => lines.push(line),
    pilots: MODEL_DRIVEN.map((character, i) => ({ character, backend: agents[i]!.backend })),
    recordOptions: { pilots: MODEL_DRIVEN.map((character) => ({ character, agent: 'model:bench/instant' })) },
    hashEvery: 50,
    pace: async () => {
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    },
  });
  const liveMs = performance.now() - live;
  const text = lines.join('');
  const recording = parseRecording(text);
  const original = text.split('\n').filter((line) => line !== '');
  const started = performance.now();
  const replayed = await replayFromCassette(recording, original);
  const replayMs = performance.now() - started;
  if (replayed.firstDifference !== undefined) throw new Error(`models.bench: the replay differs at line ${replayed.firstDifference.line}`);
  return {
    name: `cassette replay, ${ticks.toLocaleString('en')}-tick village, ${MODEL_DRIVEN.length} model-driven villagers`,
    capsule: replayMs,
    baseline: liveMs,
    unit: 'ms',
    ratio: replayMs / liveMs,
    note: `${recording.exchanges.length} model turns, 0 model calls, every line equal; vs recording the same day with models that answer at once; target ≤ 2,000 ms`,
  };
}
