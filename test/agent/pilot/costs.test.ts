// What each decision cost: the meter on its own (numbers in, records and totals out), then a piloted
// villager whose scripted "model" streams and reports usage at moments the test chooses on the
// capsule's ManualClock, so every figure is pinned exactly.

import { describe, expect, it } from 'vitest';
import { DecisionMeter, decisionCostLine, emptyCostTotals, type DecisionCost } from '../../../src/agent/pilot/costs.js';
import { aicc, ScriptedBackend, SignallingBackend } from './fakeBackend.js';
import { pilotVillager } from './village.js';

describe('the decision meter', () => {
  it('measures from the prompt: first token, reply, first call, total; sums the usage of every model message', () => {
    const totals = emptyCostTotals();
    const meter = new DecisionMeter(totals);
    meter.begin(1, 1000);
    meter.signal({ type: 'token' }, 1240);
    meter.signal({ type: 'token' }, 1300); // a later message's first token: not the decision's first
    meter.signal({ type: 'usage', inputTokens: 800, outputTokens: 30, costUsd: 0.002 }, 1500);
    meter.signal({ type: 'usage', inputTokens: 850, outputTokens: 12, costUsd: 0.001 }, 1600); // a steer's turn
    meter.replied(1600);
    meter.callSent(1610);
    meter.callSent(1650);
    const record = meter.end(1700, 'replied');
    expect(record).toEqual({
      decision: 1,
      startedAt: 1000,
      firstTokenMs: 240,
      replyMs: 600,
      firstToolCallMs: 610,
      totalMs: 700,
      inputTokens: 1650,
      outputTokens: 42,
      costUsd: 0.003,
      calls: 2,
      ended: 'replied',
    });
    expect(totals).toMatchObject({ decisions: 1, inputTokens: 1650, outputTokens: 42, withUsage: 1, firstTokenMs: { mean: 240, p50: 240, samples: 1 } });
    expect(totals.recent).toEqual([record]);
  });

  it('leaves what was not seen undefined, and keeps a usage field the agent left out out', () => {
    const totals = emptyCostTotals();
    const meter = new DecisionMeter(totals);
    meter.begin(1, 0);
    meter.replied(900);
    expect(meter.end(900, 'replied')).toEqual({ decision: 1, startedAt: 0, replyMs: 900, totalMs: 900, calls: 0, ended: 'replied' });
    meter.begin(2, 1000);
    meter.signal({ type: 'usage', outputTokens: 7 }, 1100);
    expect(meter.end(1200, 'aborted')).toEqual({ decision: 2, startedAt: 1000, outputTokens: 7, totalMs: 200, calls: 0, ended: 'aborted' });
    expect(totals).toMatchObject({
      decisions: 2,
      outputTokens: 7,
      withUsage: 1,
      firstTokenMs: { samples: 0 },
      firstToolCallMs: { samples: 0 },
      totalMs: { mean: 550, samples: 2 },
    });
    expect(totals.inputTokens).toBeUndefined();
    expect(totals.costUsd).toBeUndefined();
    expect(totals.firstTokenMs.mean).toBeUndefined();
  });

  it('drops signals that come while no decision is open, and ends nothing twice', () => {
    const totals = emptyCostTotals();
    const meter = new DecisionMeter(totals);
    meter.signal({ type: 'usage', inputTokens: 5 }, 10);
    meter.callSent(10);
    expect(meter.end(20, 'stopped')).toBeUndefined();
    meter.begin(1, 100);
    expect(meter.end(150, 'aborted')).toBeDefined();
    meter.signal({ type: 'usage', inputTokens: 5 }, 160); // the aborted run's usage, late
    expect(meter.end(170, 'stopped')).toBeUndefined();
    expect(totals).toMatchObject({ decisions: 1, withUsage: 0 });
    expect(totals.inputTokens).toBeUndefined();
  });

  it('keeps the last records only; the means count them all, the median the kept ones', () => {
    const totals = emptyCostTotals();
    const meter = new DecisionMeter(totals, 3);
    for (const [n, ttft] of [10, 20, 30, 400, 500].entries()) {
      meter.begin(n + 1, n * 1000);
      meter.signal({ type: 'token' }, n * 1000 + ttft);
      meter.end(n * 1000 + 600, 'replied');
    }
    expect(totals.recent.map((r) => r.decision)).toEqual([3, 4, 5]);
    expect(totals.decisions).toBe(5);
    expect(totals.firstTokenMs).toEqual({ mean: 192, p50: 400, samples: 5 });
    expect(() => new DecisionMeter(emptyCostTotals(), -1)).toThrow(/Pilot: maxDecisionCosts must be a whole number >= 0, got -1/);
  });

  it('writes one summary line, saying what was not measured or reported', () => {
    const totals = emptyCostTotals();
    const meter = new DecisionMeter(totals);
    meter.begin(1, 0);
    meter.signal({ type: 'token' }, 300);
    meter.signal({ type: 'usage', inputTokens: 1200, outputTokens: 40, costUsd: 0.0042 }, 800);
    meter.replied(800);
    meter.callSent(800);
    meter.end(900, 'replied');
    meter.begin(2, 1000);
    meter.replied(1500);
    meter.end(1500, 'replied');
    expect(decisionCostLine(totals)).toBe(
      'decisions (pilot): 2, TTFT mean 300.0 ms, p50 300.0 ms (1 of 2), first call mean 800.0 ms, p50 800.0 ms (1 of 2), total mean 700.0 ms, p50 700.0 ms, tokens in/out 1200/40, cost $0.00420',
    );
    expect(decisionCostLine(emptyCostTotals())).toBe(
      'decisions (pilot): 0, TTFT not measured, first call not measured, total not measured, tokens not reported, cost not reported',
    );
  });
});

describe("a piloted villager's decision costs", () => {
  it('are measured on the capsule clock from the prompt: first token, reply, first call, total, tokens and cost', async () => {
    const backend = new SignallingBackend([aicc({ tool: 'look' }), aicc()]);
    const release = backend.hold();
    const { pilot, run, village } = await pilotVillager('bram', [], { backend, quietWakeMs: Infinity });
    const costs: DecisionCost[] = [];
    pilot.on('cost', (cost) => costs.push(cost));
    pilot.start();
    expect(backend.observers).toBe(1);
    const started = village.clock.now();
    await run(3); // 300 ms with nothing streamed
    backend.signal({ type: 'token' });
    await run(2);
    backend.signal({ type: 'usage', inputTokens: 1500, outputTokens: 24, costUsd: 0.0031 });
    release();
    await run(10, () => costs.length >= 1);
    // The call leaves as the reply is read (500 ms); the village answers calls on its next tick (600 ms).
    expect(costs[0]).toEqual({
      decision: 1,
      startedAt: started,
      firstTokenMs: 300,
      replyMs: 500,
      firstToolCallMs: 500,
      totalMs: 600,
      inputTokens: 1500,
      outputTokens: 24,
      costUsd: 0.0031,
      calls: 1,
      ended: 'replied',
    });
    expect(pilot.stats.costs).toMatchObject({
      decisions: 1,
      inputTokens: 1500,
      outputTokens: 24,
      costUsd: 0.0031,
      firstTokenMs: { mean: 300 },
      recent: [costs[0]],
    });
    pilot.stop();
    expect(backend.observers).toBe(0);
  });

  it('over a backend that cannot see the model at work: times only, and the line says tokens and cost were not reported', async () => {
    const { backend, pilot, run } = await pilotVillager('bram', [aicc({ tool: 'look' }), aicc()], { quietWakeMs: Infinity });
    expect(backend).toBeInstanceOf(ScriptedBackend);
    expect('observe' in backend).toBe(false);
    pilot.start();
    await run(20, () => pilot.stats.costs.decisions >= 2);
    const [first] = pilot.stats.costs.recent;
    expect(first).toMatchObject({ decision: 1, calls: 1, ended: 'replied', replyMs: 0 });
    for (const field of ['firstTokenMs', 'inputTokens', 'outputTokens', 'costUsd'] as const) expect(first![field]).toBeUndefined();
    expect(decisionCostLine(pilot.stats.costs)).toMatch(
      /^decisions \(pilot\): 2, TTFT not measured, first call mean [\d.]+ ms.*, tokens not reported, cost not reported$/,
    );
  });

  it('ends an aborted decision as aborted, with what it had seen, and a stopped one as stopped', async () => {
    const backend = new SignallingBackend([aicc({ tool: 'look' })]);
    backend.hold();
    const { pilot, run } = await pilotVillager('bram', [], { backend, quietWakeMs: Infinity });
    const costs: DecisionCost[] = [];
    pilot.on('cost', (cost) => costs.push(cost));
    pilot.start();
    await run(1);
    backend.signal({ type: 'token' });
    await run(1);
    await pilot.abort();
    expect(costs).toEqual([{ decision: 1, startedAt: 0, firstTokenMs: 100, totalMs: 200, calls: 0, ended: 'aborted' }]);
    backend.hold();
    pilot.resume();
    await run(10, () => pilot.status === 'thinking');
    pilot.stop();
    expect(costs.map((c) => c.ended)).toEqual(['aborted', 'stopped']);
    expect(pilot.stats.costs.decisions).toBe(2);
  });

  it('keeps at most maxDecisionCosts records', async () => {
    const { pilot, run } = await pilotVillager('bram', [], { maxDecisionCosts: 2, quietWakeMs: 1_000 });
    pilot.start();
    await run(80, () => pilot.stats.costs.decisions >= 4);
    expect(pilot.stats.costs.recent.map((r) => r.decision)).toEqual([pilot.stats.costs.decisions - 1, pilot.stats.costs.decisions]);
  });
});
