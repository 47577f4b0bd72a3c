// Reading pi's message events into signals: the payloads are pi's own (pi-ai's AssistantMessageEvent
// and Usage), as pi-daemon forwards them and pi's RPC mode prints them.

import { describe, expect, it } from 'vitest';
import { ModelSignals, usageSignal } from '../../../src/agent/pilot/modelSignals.js';

const assistant = (usage?: object) => ({ message: { role: 'assistant', content: [], ...(usage !== undefined && { usage }) } });
const delta = (type: string) => ({ assistantMessageEvent: { type, contentIndex: 0, delta: 'x', partial: {} } });

describe("pi's message events as signals", () => {
  it('one token per model message: its first delta of text, thinking or a tool call', () => {
    const signals = new ModelSignals();
    expect(signals.read('start', assistant())).toBeUndefined();
    expect(signals.read('update', { assistantMessageEvent: { type: 'text_start', contentIndex: 0 } })).toBeUndefined();
    expect(signals.read('update', delta('thinking_delta'))).toEqual({ type: 'token' });
    expect(signals.read('update', delta('text_delta'))).toBeUndefined();
    expect(signals.read('start', { message: { role: 'user', content: [] } })).toBeUndefined();
    expect(signals.read('update', delta('text_delta'))).toBeUndefined(); // a user message does not start a new model message
    expect(signals.read('start', assistant())).toBeUndefined();
    expect(signals.read('update', delta('toolcall_delta'))).toEqual({ type: 'token' });
  });

  it("usage from the model message's end: prompt tokens cached or not, output, cost.total", () => {
    const signals = new ModelSignals();
    const usage = {
      input: 300,
      output: 25,
      cacheRead: 700,
      cacheWrite: 50,
      totalTokens: 1075,
      cost: { input: 0.001, output: 0.002, cacheRead: 0.0001, cacheWrite: 0.0002, total: 0.0033 },
    };
    expect(signals.read('end', assistant(usage))).toEqual({ type: 'usage', inputTokens: 1050, cachedInputTokens: 700, outputTokens: 25, costUsd: 0.0033 });
    expect(signals.read('end', { message: { role: 'user', usage } })).toBeUndefined();
    expect(signals.read('end', { message: { role: 'system', usage } })).toBeUndefined();
    expect(signals.read('end', assistant())).toBeUndefined();
  });

  it('keeps out what pi left out or wrote wrong', () => {
    expect(usageSignal({ output: 4 })).toEqual({ type: 'usage', outputTokens: 4 });
    expect(usageSignal({ input: -1, output: 'many', cost: { total: Number.NaN } })).toBeUndefined();
    expect(usageSignal({ input: 10, cost: {} })).toEqual({ type: 'usage', inputTokens: 10 });
    expect(usageSignal(null)).toBeUndefined();
  });
});
