import { describe, expect, it } from 'vitest';
import type { ModelReply, ModelRequest, ModelTurn } from '../../src/agent/model/modelPort.js';
import { modelAgent, policyAgent } from '../../src/research/evalAgents.js';
import { type EvalAgent, runEvalEpisode, type WallClock } from '../../src/research/evalEpisode.js';
import { runEpisode } from '../../src/research/episode.js';
import { villageWorld } from '../../src/worlds/village/villageWorld.js';

const strip = <T extends { wallMs: number }>({ wallMs: _, ...rest }: T) => rest;

/** A model's message: text and tool calls, with usage (and its cost, as pi-ai prices it). */
function reply(calls: Array<{ name: string; arguments: Record<string, unknown> }>, text = ''): ModelReply {
  return {
    role: 'assistant',
    content: [...(text !== '' ? [{ type: 'text' as const, text }] : []), ...calls.map((call, i) => ({ type: 'toolCall' as const, id: `c${i}`, ...call }))],
    usage: { input: 120, output: 8, cacheRead: 0, cacheWrite: 0, cost: { total: 0.001 } },
    stopReason: calls.length > 0 ? 'toolUse' : 'stop',
    timestamp: 0,
  };
}

/** Goes south after each look-around: answers by the request alone, so the same episode gets the same answers. */
const walker: ModelTurn = async (request: ModelRequest) =>
  request.messages.at(-1)?.role === 'toolResult' ? reply([], 'Onwards.') : reply([{ name: 'go', arguments: { direction: 'south' } }]);

/** A wall clock whose timers wait until the test says time is up: a hang is proven by the clock, not by waiting. */
function manualWall(): WallClock & { expire(): void } {
  let expired = false;
  const pending: Array<() => void> = [];
  return {
    now: () => 0,
    setTimeout(callback) {
      if (expired) setImmediate(callback);
      else pending.push(callback);
      return callback;
    },
    clearTimeout(handle) {
      const at = pending.indexOf(handle as () => void);
      if (at >= 0) pending.splice(at, 1);
    },
    expire() {
      expired = true;
      for (const callback of pending.splice(0)) setImmediate(callback);
    },
  };
}

const evalOf = (agent: EvalAgent, options: { seed?: number; roles?: string[]; maxTicks?: number; wall?: WallClock; hangMs?: number } = {}) =>
  runEvalEpisode(villageWorld, { seed: options.seed ?? 7, agent, agentName: 'under-test', agentSpec: 'test:agent', ...options });

describe('runEvalEpisode', () => {
  it("plays the world's own policy as the very episode a sweep runs, and judges it from the world's state", async () => {
    const evaluated = await evalOf(policyAgent('world'));
    const swept = await runEpisode(villageWorld, { seed: 7 });
    expect(evaluated.stateHash).toBe(swept.stateHash);
    expect(evaluated.metrics).toEqual(swept.metrics);
    expect(evaluated.ticks).toBe(swept.ticks);
    expect(evaluated).toMatchObject({
      agent: 'under-test',
      agentSpec: 'test:agent',
      roles: ['ada', 'bram', 'cleo'],
      success: 1,
      goals: { ada: 1, bram: 1, cleo: 1 },
    });
    // The goals are met (by the world's state) before the villagers say they are done and the day ends.
    expect(evaluated.ticksToSuccess).toBeGreaterThan(0);
    expect(evaluated.ticksToSuccess).toBeLessThanOrEqual(evaluated.ticks);
    expect(evaluated.roleCalls.total).toBe(evaluated.calls.total);
    expect(evaluated.timeline.calls).toHaveLength(evaluated.calls.total);
    expect(evaluated.decisions).toBe(0);
    expect(evaluated.failure).toBeUndefined();
  });

  it("counts a wanderer's calls, refusals and quota hits for its roles only, the others played by the world", async () => {
    const episode = await evalOf(policyAgent('wanderer'), { roles: ['cleo'], seed: 3 });
    expect(episode.roles).toEqual(['cleo']);
    expect(Object.keys(episode.goals)).toEqual(['cleo']);
    const cleoCalls = episode.timeline.calls.filter(([, character]) => episode.timeline.characters[character] === 'cleo');
    expect(episode.roleCalls.total).toBe(cleoCalls.length);
    expect(episode.roleRefusals.total).toBe(cleoCalls.filter(([, , , code]) => code !== '').length);
    expect(episode.roleRefusals.total).toBeGreaterThan(0);
    // A quota hit is a refusal of its own kind: never more of them than tool_unavailable refusals.
    expect(episode.ruleHits.quota).toBeLessThanOrEqual(episode.roleRefusals.byCode['tool_unavailable'] ?? 0);
    // Ada and Bram are the world's: their calls are in the timeline but not the role's counts.
    expect(episode.calls.total).toBeGreaterThan(episode.roleCalls.total);
    // The wanderer never leaves a ballad: the episode runs to nightfall.
    expect(episode).toMatchObject({ success: 0, ticksToSuccess: null, stop: 'nightfall' });
  });

  it('refuses a character the world does not have, and a world with no goal to judge by', async () => {
    await expect(evalOf(policyAgent('world'), { roles: ['zed'] })).rejects.toThrow(/has no character "zed" to play; its characters are ada, bram, cleo/);
    const { defineWorld } = await import('../../src/research/world.js');
    const goalless = defineWorld({
      ...villageWorld,
      setup: async (setup) => {
        const { goal: _, ...episode } = await villageWorld.setup(setup);
        return episode;
      },
    });
    await expect(runEvalEpisode(goalless, { seed: 1, agent: policyAgent('world'), agentName: 'a', agentSpec: 'policy:world' })).rejects.toThrow(
      /has no goal\(character\) to judge success by/,
    );
  });

  it('seats a model: its native tool calls reach the capsule, each decision with its tokens and cost, the same answers giving the same episode', async () => {
    const a = await evalOf(modelAgent({ turnOf: () => walker }), { roles: ['cleo'], maxTicks: 120 });
    const b = await evalOf(modelAgent({ turnOf: () => walker }), { roles: ['cleo'], maxTicks: 120 });
    expect(a.failure).toBeUndefined();
    expect(a.decisions).toBeGreaterThan(0);
    expect(a.roleCalls.byTool['go']).toBeGreaterThan(0);
    expect(a.tokens).toEqual({ input: 120 * 2 * a.decisions, output: 8 * 2 * a.decisions });
    expect(a.costUsd).toBeCloseTo(0.002 * a.decisions, 9);
    expect(a.timeline.decisions).toHaveLength(a.decisions);
    const { decisionMs: _a, timeline: ta, ...restA } = strip(a);
    const { decisionMs: _b, timeline: tb, ...restB } = strip(b);
    expect(restB).toEqual(restA);
    expect(tb.calls).toEqual(ta.calls);
  });

  it('records a model whose provider keeps failing as crashed, and the episode goes on without it', async () => {
    const failing: ModelTurn = async () => {
      throw new Error('503 upstream unavailable');
    };
    const episode = await evalOf(modelAgent({ turnOf: () => failing }), { roles: ['cleo'] });
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/^cleo: .*503 upstream unavailable/);
    // Ada and Bram, the world's, still bake and trade.
    expect(episode.metrics).toMatchObject({ pieBaked: 1, tradeDone: 1, balladLeft: 0 });
    expect(episode.success).toBe(0);
  });

  it('records a model that answers garbage as such', async () => {
    const garbage = (async () => ({ nonsense: true })) as unknown as ModelTurn;
    const episode = await evalOf(modelAgent({ turnOf: () => garbage }), { roles: ['cleo'] });
    expect(episode.failure).toMatchObject({ kind: 'garbage' });
    expect(episode.metrics).toMatchObject({ pieBaked: 1 });
  });

  it('records a model that never answers as hung once the wall deadline passes, and finishes the episode', async () => {
    const wall = manualWall();
    const silent: ModelTurn = () => {
      wall.expire();
      return new Promise<never>(() => {});
    };
    const episode = await evalOf(modelAgent({ turnOf: () => silent }), { roles: ['cleo'], wall, hangMs: 5_000 });
    expect(episode.failure).toMatchObject({ kind: 'hung', reason: 'cleo: did not settle within 5000 ms of wall time' });
    expect(episode.stop).toBe('nightfall');
    expect(episode.metrics).toMatchObject({ pieBaked: 1, tradeDone: 1 });
  });

  it('records an agent that cannot even start as crashed', async () => {
    const broken: EvalAgent = async () => {
      throw new Error('no such binary');
    };
    const episode = await evalOf(broken, { roles: ['bram'], maxTicks: 50 });
    expect(episode.failure).toEqual({ kind: 'crashed', tick: 0, reason: 'could not start as bram: no such binary' });
    expect(episode.ticks).toBe(50);
  });
});
