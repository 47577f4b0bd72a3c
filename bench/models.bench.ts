// Model-driven runs: what the capsule's side of a model decision costs against the model's own
// time, and how fast a recorded model run replays from its cassette.
//
// Rows and baselines:
// - "our part of a model decision": a piloted Cleo over ModelBackend whose model answers at once
//   (a scripted turn: two tool calls, then text) — the pilot, the backend, the conversation, the
//   gate and the calls through the capsule, per model request — against the real local model's own
//   time for one request of the same conversation (test/support/localModel: SmolLM2-135M, one
//   thread). Target: ours ≤ 2% of the model's. Without the local model the row says so in its note.
// - "model briefing tokens", "model prompt tokens per request": what the direct backend sends the
//   model, counted with the real local model's tokenizer (its server's /tokenize; gpt-tokenizer in a
//   quick run or without the model) — the briefing against the manifest's raw tool JSON, and what
//   each request adds against the raw AICC JSON of the news it carries. Target ≤ 50% for the latter.
// - "cassette replay, 1,000-tick village": `aicc replay` of a 1,000-tick day with Cleo model-driven
//   (recorded from a model that answers at once), world and pilot re-run from the cassette with no
//   model, against recording that same day. Target: ≤ 2 s.

import { runHeadless } from '../src/adapters/headless/runner.js';
import { connectInProcess } from '../src/agent/inProcess.js';
import { ModelBackend } from '../src/agent/model/modelBackend.js';
import { encode } from 'gpt-tokenizer';
import { AgentClient } from '../src/agent/agentClient.js';
import type { ModelMessage, ModelReply, ModelRequest, ModelTurn } from '../src/agent/model/modelPort.js';
import { usable } from '../src/agent/pilot/catalog.js';
import { createMemoryLinkPair } from '../src/links/memory.js';
import { tapLink } from '../src/links/wrapLink.js';
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
  return [await decisionShare(options), ...(await promptTokens(options)), await cassetteReplay(options)];
}

/** Counts a text's tokens: the real local model's tokenizer (its server's /tokenize), or gpt-tokenizer where it is absent. */
type Tokenizer = { name: string; count(text: string): Promise<number> };

/**
 * What the model is sent, in the model's own tokens, against the raw AICC JSON of the same news:
 * the briefing (system prompt, first message and the tools as native tools) against the usable
 * tool descriptors of the manifest; and per model request, what the request adds to the
 * conversation (digests and tool results, not the model's own replies) against the raw JSON of the
 * AICC event and tool_result messages the villager got since the request before.
 */
async function promptTokens(options: BenchOptions): Promise<BenchRow[]> {
  const requests = options.quick ? 12 : 60;
  const village = buildVillage(7);
  const news: Array<{ message: Record<string, unknown>; before: number }> = [];
  const sent: ModelRequest[] = [];
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const agentSide = tapLink(agentEnd, (frame) => {
    const message = typeof frame === 'string' ? (JSON.parse(frame) as Record<string, unknown>) : (frame as unknown as Record<string, unknown>);
    if (message['type'] === 'event' || message['type'] === 'tool_result') news.push({ message, before: sent.length });
  });
  const connecting = AgentClient.connect(agentSide, { clock: village.clock });
  village.connect('cleo', bridgeEnd);
  const client = await connecting;
  const scripted = instantTurn();
  const turn: ModelTurn = (request, turnOptions) => {
    sent.push(JSON.parse(JSON.stringify(request)) as ModelRequest);
    return scripted(request, turnOptions);
  };
  const backend = new ModelBackend({ client, turn, gate: new ProviderGate({ clock: village.clock }), now: () => village.clock.now() });
  const pilot = new Pilot({ client, backend, clock: village.clock, quietWakeMs: 200, maxDecisionsPerMinute: 10_000, character: { id: 'cleo', name: 'Cleo' } });
  pilot.start();
  await runHeadless({
    capsule: village.capsule,
    ticks: 1_000_000,
    stopWhen: () => sent.length >= requests,
    onTick: () => new Promise((resolve) => setImmediate(resolve)),
  });
  pilot.stop();
  const manifest = client.manifest;
  await client.close('bench over');
  village.capsule.dispose();

  const skip = options.quick ? 'a quick run' : await localModelAvailable().catch((error: unknown) => String(error));
  const model = skip === undefined ? await startLocalModel() : undefined;
  try {
    const tokenizer: Tokenizer =
      model === undefined
        ? { name: `gpt-tokenizer (the local model's tokenizer not used: ${skip})`, count: async (text) => encode(text).length }
        : {
            name: `${model.modelId}'s own tokenizer`,
            count: async (text) => {
              const reply = await fetch(`${model.baseUrl.replace(/\/v1$/, '')}/tokenize`, { method: 'POST', body: JSON.stringify({ content: text }) });
              return ((await reply.json()) as { tokens: number[] }).tokens.length;
            },
          };
    const first = sent[0]!;
    const briefing = await tokenizer.count([first.systemPrompt, textOf(first.messages[0]!), JSON.stringify(first.tools)].join('\n'));
    const catalog = await tokenizer.count(JSON.stringify(manifest.tools.filter((tool) => usable(tool, manifest.capabilities))));
    let ours = 0;
    let raw = 0;
    let counted = 0;
    for (let k = 1; k < sent.length; k++) {
      const before = sent[k - 1]!.messages;
      const now = sent[k]!.messages;
      // A fold rewrites the older turns: that request is left out of both sides.
      if (JSON.stringify(now.slice(0, before.length)) !== JSON.stringify(before)) continue;
      const added = now.slice(before.length).filter((message) => message.role !== 'assistant');
      const arrived = news.filter((item) => item.before === k).map((item) => JSON.stringify(item.message));
      if (arrived.length === 0) continue;
      ours += await tokenizer.count(added.map(textOf).join('\n'));
      raw += await tokenizer.count(arrived.join('\n'));
      counted++;
    }
    return [
      {
        name: 'model briefing tokens',
        capsule: briefing,
        baseline: catalog,
        unit: 'tokens',
        ratio: briefing / catalog,
        note: `${tokenizer.name}; system prompt + briefing + the tools as native tools, vs the raw JSON of the manifest's usable tool descriptors`,
      },
      {
        name: 'model prompt tokens per request',
        capsule: ours / Math.max(1, counted),
        baseline: raw / Math.max(1, counted),
        unit: 'tokens',
        ratio: ours / Math.max(1, raw),
        note: `${tokenizer.name}; what each of ${counted} requests adds (digests, tool results) vs the raw JSON of the AICC events and tool results that came in since the request before; target ≤ 50%`,
      },
    ];
  } finally {
    await model?.stop();
  }
}

/** A message's text, as the model reads it. */
function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => ('text' in part ? part.text : JSON.stringify(part))).join('\n');
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
