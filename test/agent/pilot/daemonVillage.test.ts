// The pilot over pi-daemon, end to end: Bram of Millbrook (src/worlds/village) played by the daemon
// simulator's scripted model, reached through DaemonClient and DaemonBackend over a memory link;
// every call a real AICC tool_call, the capsule stepped on its ManualClock. Several decisions, an
// invalid call the model corrects, and a steer while a wake runs.

import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../../src/adapters/headless/runner.js';
import { AgentClient } from '../../../src/agent/agentClient.js';
import { DaemonBackend, Pilot } from '../../../src/agent/pilot/index.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { DaemonClient } from '../../../src/pi/index.js';
import type { CallRecord } from '../../../src/runtime/calls.js';
import { buildVillage } from '../../../src/worlds/village/world.js';
import { DaemonSimulator, type TurnView } from '../../pi/daemonSimulator.js';
import { aicc } from './fakeBackend.js';

async function daemonVillage() {
  const village = buildVillage(7);
  const calls: CallRecord[] = [];
  village.capsule.on('call', (record) => calls.push(record));
  const connect = async (id: string): Promise<AgentClient> => {
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    const connecting = AgentClient.connect(agentEnd, { clock: village.clock, randomBytes: village.random.fork(`agent:${id}`).bytes });
    village.connect(id, bridgeEnd);
    return connecting;
  };
  const sim = new DaemonSimulator({ clock: village.clock });
  const daemon = await DaemonClient.connect(sim.link(), { clock: village.clock });
  const backend = await DaemonBackend.open(daemon, {
    sessionId: 'millbrook-bram',
    cwd: '/srv/aicc',
    open: { systemPrompt: 'You play a villager. Answer with aicc blocks.' },
  });
  const client = await connect('bram');
  const spec = village.world.character('bram')!;
  const pilot = new Pilot({ client, backend, clock: village.clock, character: { id: 'bram', name: spec.name, description: spec.description } });
  const run = async (ticks: number, until?: () => boolean): Promise<number> =>
    (await runHeadless({ capsule: village.capsule, ticks, ...(until !== undefined && { stopWhen: until }) })).ticks;
  return { village, calls, sim, daemon, backend, pilot, run, connect };
}

describe('a villager piloted through pi-daemon', () => {
  it('decides several times, corrects an invalid call, and answers a steer within the running wake', async () => {
    const { village, calls, sim, pilot, run, connect } = await daemonVillage();
    const ada = await connect('ada');
    sim.scriptTurns(
      (turn: TurnView) => (turn.prompt.startsWith('You are Bram in Millbrook') ? aicc({ tool: 'look' }) : 'not briefed'),
      aicc({ tool: 'go', input: { dir: 'south' } }),
      (turn: TurnView) => (/REFUSED go \{dir: south\} \(invalid_input\)/.test(turn.prompt) ? aicc({ tool: 'go', input: { direction: 'south' } }) : 'confused'),
      {
        hold: true,
        text: (turn: TurnView) =>
          turn.steers.some((s) => s.includes('a fresh loaf'))
            ? aicc({ tool: 'say', input: { text: 'A loaf for an apple, Ada!', to: 'ada' } })
            : aicc({ tool: 'look' }),
      },
    );
    pilot.start();
    await run(60, () => calls.some((c) => c.tool === 'go' && c.result.ok));

    // Three decisions, one wake each, in one session and generation.
    expect(sim.turns.slice(0, 3).map((t) => t.generation)).toEqual([1, 1, 1]);
    expect(calls.map((c) => [c.tool, c.result.ok])).toEqual([
      ['look', true],
      ['go', false],
      ['go', true],
    ]); // Bram's, before Ada speaks
    expect(calls[1]!.result.error).toMatchObject({ code: 'invalid_input' });
    expect(village.world.character('bram')!.room).toBe('lane');

    // Ada walks up to Bram while the model is thinking, and speaks to him: an urgent steer.
    await run(20, () => sim.running('millbrook-bram'));
    expect(sim.running('millbrook-bram')).toBe(true);
    for (const step of ['south', 'west']) village.world.move('ada', step);
    void ada.call('say', { text: 'Bram, a fresh loaf for one of your apples?', to: 'bram' });
    await run(10, () => sim.turns[3]!.steers.length > 0);
    expect(sim.turns[3]!.steers[0]).toMatch(/^Urgent news while you answer:\n[\s\S]*a fresh loaf/);
    sim.finishTurn('millbrook-bram');
    const bramSays = (c: CallRecord): boolean => c.tool === 'say' && c.input['to'] === 'ada';
    await run(10, () => calls.some(bramSays));
    expect(calls.find(bramSays)).toMatchObject({ input: { text: 'A loaf for an apple, Ada!', to: 'ada' }, result: { ok: true } });
    expect(pilot.stats).toMatchObject({ steers: 1, callsRefused: 1 });
    expect(pilot.stats.decisions).toBeGreaterThanOrEqual(4);
    // Every wake was its own request with its own key; the steer used the daemon's steer.
    const wakes = sim.received.filter((r) => r['operation'] === 'wake');
    expect(new Set(wakes.map((w) => w['idempotencyKey'])).size).toBe(wakes.length);
    expect(sim.received.filter((r) => r['operation'] === 'steer')).toHaveLength(1);
    pilot.stop('test over');
  });

  it("measures each decision: the first token streamed mid-turn, pi's usage, the first call, on the capsule clock", async () => {
    const { village, calls, sim, pilot, run } = await daemonVillage();
    const usage = {
      input: 1200,
      output: 18,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1218,
      cost: { input: 0.0012, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.0015 },
    };
    sim.scriptTurns({ text: aicc({ tool: 'look' }), hold: true, usage });
    pilot.start();
    const started = village.clock.now();
    await run(2);
    sim.emit('millbrook-bram', 'messageStart', { message: { role: 'assistant', content: [] } });
    sim.emit('millbrook-bram', 'messageUpdate', { assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: '```' } });
    await run(3);
    sim.finishTurn('millbrook-bram');
    await run(10, () => pilot.stats.costs.decisions >= 1);
    expect(calls.map((c) => c.tool)).toEqual(['look']);
    expect(pilot.stats.costs.recent[0]).toEqual({
      decision: 1,
      startedAt: started,
      firstTokenMs: 200,
      replyMs: 500,
      firstToolCallMs: 500,
      totalMs: 600,
      inputTokens: 1200,
      outputTokens: 18,
      cachedInputTokens: 0,
      costUsd: 0.0015,
      calls: 1,
      ended: 'replied',
    });
    pilot.stop('test over');
  });
});
