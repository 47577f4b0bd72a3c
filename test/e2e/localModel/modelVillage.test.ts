// A real language model drives Cleo through the village: the direct model backend on pi-ai, against a
// small instruct model served on 127.0.0.1 (test/support/localModel). The world does not step while a
// model request is out, so the run takes the model's time and little else. What is asserted is the
// protocol — the calls reach the capsule well-formed or come back refused, every refusal reaches the
// model as a tool error and the model is asked again, the context stays inside its budget, usage is
// counted — never what a small model chooses. The shares it gets right are measured (bench notebook).

import { afterAll, beforeAll, expect, it } from 'vitest';
import { runHeadless } from '../../../src/adapters/headless/runner.js';
import type { ModelRequest, ModelTurn } from '../../../src/agent/model/modelPort.js';
import { piAiModel } from '../../../src/node/model/piAi.js';
import type { DecisionCost } from '../../../src/runtime/decisionCost.js';
import { describeWithLocalModel, type LocalModel, modelDrivenCleo, startLocalModel } from '../../support/localModel/index.js';

const DECISIONS = 10;
const BUDGET = 1_000;
/** Short answers: a call fits in a few dozen tokens, and each token costs ~45 ms on one thread (the run is mostly generation). */
const MAX_TOKENS = 48;

await describeWithLocalModel('a real local model drives Cleo through the direct model backend', () => {
  let model: LocalModel;
  beforeAll(async () => {
    model = await startLocalModel();
  }, 300_000);
  afterAll(() => model?.stop());

  it(`makes ${DECISIONS} decisions: its calls are well-formed or refused, refusals go back to it, the context stays in budget, usage is counted`, async () => {
    const { turn } = await piAiModel({ provider: 'local', model: model.modelId, baseUrl: model.baseUrl, maxTokens: MAX_TOKENS, temperature: 0 });
    const requests: ModelRequest[] = [];
    const watched: ModelTurn = (request, options) => {
      requests.push({ ...request, messages: [...request.messages] });
      return turn(request, options);
    };
    const { village, client, backend, pilot, onTick } = await modelDrivenCleo(watched, { seed: 7, contextBudgetTokens: BUDGET });
    const costs: DecisionCost[] = [];
    pilot.on('cost', (cost) => costs.push(cost));
    const calls: Array<{ tool: string; ok: boolean; input: unknown; code?: string | undefined }> = [];
    village.capsule.on('call', (event) => {
      if (event.character === 'cleo')
        calls.push({ tool: event.tool, ok: event.result.ok, input: event.input, ...(event.result.ok ? {} : { code: event.result.error?.code }) });
    });
    pilot.start();
    // The world waits for the model: no tick while a model request is out (the calls it makes still
    // need ticks to run, so the world does not wait for a whole decision).
    await runHeadless({
      capsule: village.capsule,
      ticks: 20_000,
      stopWhen: () => costs.length >= DECISIONS,
      onTick,
    });
    pilot.stop();

    expect(costs.length).toBeGreaterThanOrEqual(DECISIONS);
    // Every decision ended as the protocol says one ends.
    for (const cost of costs) expect(['replied', 'reply_failed']).toContain(cost.ended);
    expect(costs.filter((cost) => cost.ended === 'replied').length).toBeGreaterThanOrEqual(DECISIONS / 2);
    // Usage counted from the server's own numbers.
    expect(costs.some((cost) => (cost.inputTokens ?? 0) > 0 && (cost.outputTokens ?? 0) > 0)).toBe(true);
    // Every call the model made came back to it as a result or a tool error (over all requests: folds drop old ones).
    const asked = new Map<string, string>();
    const answered = new Set<string>();
    for (const request of requests)
      for (const message of request.messages) {
        if (message.role === 'assistant') for (const block of message.content) if (block.type === 'toolCall') asked.set(block.id, block.name);
        if (message.role === 'toolResult') answered.add(message.toolCallId);
      }
    expect([...asked.keys()].filter((id) => !answered.has(id))).toEqual([]);
    const results = requests.flatMap((request) => request.messages.filter((m) => m.role === 'toolResult'));
    expect(results.length).toBeGreaterThan(0);
    // The context, as the backend estimates it (characters / 4 of the messages' content), never outgrew its budget by more than one turn.
    const estimate = (request: ModelRequest) => request.messages.reduce((sum, m) => sum + Math.ceil(JSON.stringify(m.content).length / 4), 0);
    for (const request of requests) expect(estimate(request)).toBeLessThan(BUDGET + 1_500);
    const toolErrors = new Set(results.filter((r) => r.role === 'toolResult' && r.isError).map((r) => (r.role === 'toolResult' ? r.toolCallId : '')));
    expect(backend.folds, 'the conversation outgrew its budget and was folded').toBeGreaterThan(0);
    process.stderr.write(
      `local model: ${costs.length} decisions, ${requests.length} model requests, ${asked.size} tool calls made, ${calls.length} reached the capsule (${calls.filter((c) => !c.ok).length} refused: ${[...new Set(calls.filter((c) => !c.ok).map((c) => c.code))].join(', ')}), ${toolErrors.size} tool errors sent back, ${backend.folds} folds; calls: ${calls
        .slice(0, 6)
        .map((c) => `${c.tool} ${JSON.stringify(c.input)}`)
        .join(' | ')}\n`,
    );
    await client.close('test over');
    village.capsule.dispose();
  }, 900_000);
});
