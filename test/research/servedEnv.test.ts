// ServedEnv, the episode `aicc serve` runs for a remote agent: its two faces on the swarm, the
// seats the caller takes, and requests it refuses without touching the episode.

import { describe, expect, it } from 'vitest';
import { ServedEnv, ServeError, type ToolsObservation } from '../../src/research/servedEnv.js';
import { swarmWorld } from '../../src/worlds/swarm/swarmWorld.js';

async function refusal(run: () => Promise<unknown>): Promise<ServeError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServeError);
    return error as ServeError;
  }
  throw new Error('expected a ServeError');
}

describe('ServedEnv: the vectors face', () => {
  it('observes 5×5 windows, takes moves by number as tool calls, and pays what a forager eats', async () => {
    const env = new ServedEnv(swarmWorld);
    const first = await env.reset({ seed: 3, face: 'vectors', agents: ['forager-000', 'forager-001'], params: { foragers: 4 } });
    expect(Object.keys(first.observations)).toEqual(['forager-000', 'forager-001']);
    const window = first.observations['forager-000'] as number[];
    expect(window).toHaveLength(25);
    expect(window.every((cell) => cell === -1 || cell === 0 || cell === 1)).toBe(true);
    expect(env.spaces()).toEqual({ observation: { shape: [5, 5], low: -1, high: 1 }, actions: ['eat', 'north', 'south', 'west', 'east'] });
    const before = env.state()['state_hash'];
    const step = await env.step({ 'forager-000': 1, 'forager-001': 0 });
    expect(step.tick).toBe(1);
    expect(step.infos['forager-000']?.call).toMatchObject({ tool: 'move', ok: true });
    expect(step.infos['forager-001']?.call).toMatchObject({ tool: 'eat', ok: true });
    expect(typeof step.rewards['forager-001']).toBe('number');
    expect(env.state()).toMatchObject({ world: 'swarm', seed: 3, face: 'vectors', tick: 1, step_count: 1, done: false });
    expect(env.state()['state_hash']).not.toBe(before);
    await env.close();
  });

  it('plays the same episode twice from the same seed and moves, the other foragers by the world’s policy', async () => {
    const run = async () => {
      const env = new ServedEnv(swarmWorld);
      await env.reset({ seed: 11, face: 'vectors', agents: ['forager-002'] });
      for (let i = 0; i < 30; i++) await env.step({ 'forager-002': i % 5 });
      const state = env.state();
      await env.close();
      return state;
    };
    const [a, b] = [await run(), await run()];
    expect(a['state_hash']).toBe(b['state_hash']);
    // The world's own foragers ate meanwhile: the population is not idle.
    expect((a['metrics'] as Record<string, number>)['totalEaten']).toBeGreaterThan(0);
  });

  it('refuses a move that is not one, and the episode goes on where it was', async () => {
    const env = new ServedEnv(swarmWorld);
    await env.reset({ seed: 1, face: 'vectors', agents: ['forager-000'] });
    for (const bad of [5, -1, 1.5, '1', null, { tool: 'eat' }]) {
      const error = await refusal(() => env.step({ 'forager-000': bad }));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/move's number from 0 to 4 \(eat, north, south, west, east\)/);
    }
    expect((await refusal(() => env.step({ 'forager-099': 0 }))).code).toBe('unknown_agent');
    expect((await refusal(() => env.step(JSON.parse('{"__proto__": 0}')))).code).toBe('unknown_agent');
    expect((await refusal(() => env.step([0]))).code).toBe('invalid_request');
    expect(env.state()).toMatchObject({ tick: 0, step_count: 0 });
    expect((await env.step({ 'forager-000': 0 })).tick).toBe(1);
    await env.close();
  });
});

describe('ServedEnv: the tools face', () => {
  it('takes tool calls, and the next observation carries their results — a refused call too', async () => {
    const env = new ServedEnv(swarmWorld);
    const first = await env.reset({ seed: 2, agents: ['forager-000'] });
    // The first observation lists the tools the character may call, as its manifest does.
    expect((first.observations['forager-000'] as ToolsObservation).tools?.map((tool) => tool['id'])).toEqual(['sense', 'move', 'eat']);
    const step = await env.step({ 'forager-000': { tool: 'sense', input: { radius: 2 } } });
    expect((step.observations['forager-000'] as ToolsObservation).tools).toBeUndefined();
    const seen = step.observations['forager-000'] as ToolsObservation;
    expect(seen.tick).toBe(1);
    expect(seen.results).toEqual([{ tool: 'sense', ok: true, output: { at: expect.any(Object), food: expect.any(Array) } }]);
    const refused = await env.step({ 'forager-000': { tool: 'sense', input: { radius: 99 } } });
    expect((refused.observations['forager-000'] as ToolsObservation).results[0]).toMatchObject({ tool: 'sense', ok: false, error: { code: 'invalid_input' } });
    const unknown = await env.step({ 'forager-000': { tool: 'fly' } });
    expect((unknown.observations['forager-000'] as ToolsObservation).results[0]).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    for (const bad of [{ tool: '' }, { tool: 'eat', input: [] }, { tool: 'eat', extra: 1 }, 'eat'])
      expect((await refusal(() => env.step({ 'forager-000': bad }))).code).toBe('invalid_request');
    await env.close();
  });

  it('ends at the tick limit as truncated, then refuses to step until the next reset', async () => {
    const env = new ServedEnv(swarmWorld);
    await env.reset({ seed: 2, agents: ['forager-000'], maxTicks: 2 });
    await env.step({});
    const last = await env.step({});
    expect(last).toMatchObject({ truncated: true, terminated: false, stop: 'tick_limit' });
    expect((await refusal(() => env.step({}))).code).toBe('episode_done');
    expect((await env.reset({ seed: 2, agents: ['forager-000'] })).tick).toBe(0);
    await env.close();
  });

  it('refuses resets it cannot make: a bad seed, face, param or seat', async () => {
    const env = new ServedEnv(swarmWorld);
    expect((await refusal(() => env.reset({ seed: -1 }))).code).toBe('invalid_request');
    expect((await refusal(() => env.reset({ seed: 1, face: 'pixels' as never }))).code).toBe('invalid_request');
    expect((await refusal(() => env.reset({ seed: 1, params: { wings: 2 } }))).message).toMatch(/has no parameter "wings"/);
    expect((await refusal(() => env.reset({ seed: 1, agents: ['nobody'] }))).code).toBe('unknown_agent');
    expect((await refusal(() => env.step({}))).code).toBe('no_episode');
  });
});
