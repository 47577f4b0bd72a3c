import { describe, expect, it } from 'vitest';
import type { HeadlessResult } from '../../../src/adapters/headless/runner.js';
import { RunSummary, WALL_TIME_HEADING } from '../../../src/adapters/headless/summary.js';
import { connectAgent, echoTool, makeCapsule, moveTool, settle } from '../../helpers.js';

const RESULT: HeadlessResult = { ticks: 12, wallMs: 34.56, ticksPerSecond: 347.2, stoppedBy: 'ticks' };

describe('RunSummary', () => {
  it('counts calls by tool and refusals by code, from the call events', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    capsule.registerTool(moveTool());
    const summary = new RunSummary(capsule);
    const { agent } = await connectAgent(capsule, clock, { capabilities: {} });
    await agent.call('echo', { text: 'a' });
    await agent.call('echo', { text: 'b' });
    await agent.call('echo', { text: 3 });
    await agent.call('move_to', { x: 1, y: 1 });
    await agent.call('fly', {});
    expect(summary.toJSON()).toEqual({
      calls: { total: 5, byTool: { echo: 3, fly: 1, move_to: 1 } },
      refusals: { total: 3, byCode: { invalid_input: 1, tool_unavailable: 1, tool_unknown: 1 } },
      decisionLatencyMs: { hero: null },
    });
  });

  it("keeps each agent's measured decision latency after its session closes", async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
    capsule.registerTool(echoTool);
    const summary = new RunSummary(capsule);
    const { agent } = await connectAgent(capsule, clock, { character: 'wren', agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    capsule.step(100);
    await settle();
    // The agent takes 40 ms of simulated time to answer the tick news.
    clock.advance(40);
    const answer = agent.call('echo', { text: 'thought about it' });
    await settle();
    capsule.step(100);
    await answer;
    expect(summary.toJSON().decisionLatencyMs).toEqual({ wren: 40 });
    await agent.close();
    await settle();
    expect(capsule.sessions()).toEqual([]);
    expect(summary.toJSON().decisionLatencyMs).toEqual({ wren: 40 });
  });

  it('includes sessions opened before it was attached, and stops counting once detached', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock, { character: 'early' });
    const summary = new RunSummary(capsule);
    await agent.call('echo', { text: 'counted' });
    summary.detach();
    await agent.call('echo', { text: 'not counted' });
    expect(summary.toJSON()).toMatchObject({ calls: { total: 1 }, decisionLatencyMs: { early: null } });
  });

  it('formats reproducible lines first and the wall time last, under its own heading', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const summary = new RunSummary(capsule);
    const { agent } = await connectAgent(capsule, clock, { character: 'wren' });
    await agent.call('echo', { text: 'x' });
    await agent.call('nope', {});
    expect(summary.format()).toEqual([
      'calls: 2 (echo 1, nope 1)',
      'refusals: 1 (tool_unknown 1)',
      'decision latency: none measured (1 agent)',
      '  wren: not measured',
    ]);
    const lines = summary.format(RESULT);
    expect(lines[0]).toBe('ticks: 12 (stopped by ticks)');
    expect(lines.slice(1, -2)).toEqual(summary.format());
    expect(lines.slice(-2)).toEqual([WALL_TIME_HEADING, 'wall: 34.6 ms, 347 ticks/s']);
  });

  it('summarises latency across agents: mean, min and max of those measured', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
    capsule.registerTool(echoTool);
    const summary = new RunSummary(capsule);
    const a = await connectAgent(capsule, clock, { character: 'a', agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    const b = await connectAgent(capsule, clock, { character: 'b', agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    await connectAgent(capsule, clock, { character: 'c', subscriptions: [] });
    capsule.step(100);
    await settle();
    clock.advance(10);
    void a.agent.call('echo', { text: 'quick' });
    await settle();
    clock.advance(20);
    void b.agent.call('echo', { text: 'slower' });
    await settle();
    expect(summary.format().slice(2)).toEqual([
      'decision latency (simulated ms): 2 of 3 agents measured, mean 20.0, min 10.0, max 30.0',
      '  a: 10.0 ms',
      '  b: 30.0 ms',
      '  c: not measured',
    ]);
  });
});
