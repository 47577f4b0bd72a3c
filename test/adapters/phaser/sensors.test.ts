// @vitest-environment jsdom
// The sensors: position, nearby (radius, order, kinds, sight through obstacles) and can_see.

import { afterEach, describe, expect, it } from 'vitest';
import type { AgentClient } from '../../../src/agent/agentClient.js';
import { agentFor, makeTexture, stage, type Stage } from './harness.js';

let s: Stage;
afterEach(() => s?.destroy());

/**
 * hero at (100, 100); an apple at (150, 100) in plain view; a villager at (100, 300) behind a wall
 * that spans y 180..220; a second apple at (700, 500), far away.
 */
async function meadow(options: { perceptionRadius?: number } = {}): Promise<AgentClient> {
  s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' }, ...options } });
  const key = makeTexture(s.scene);
  s.plugin.addCharacter('hero', s.scene.add.sprite(100, 100, key));
  s.plugin.addObject('apple_a', s.scene.add.sprite(150, 100, key), { kind: 'apple' });
  s.plugin.addCharacter('mira', s.scene.add.sprite(100, 300, key), { kind: 'villager' });
  s.plugin.addObject('apple_b', s.scene.add.sprite(700, 500, key), { kind: 'apple' });
  s.plugin.addObstacle({ x: 0, y: 180, width: 400, height: 40 }, { kind: 'wall' });
  s.plugin.registerTools();
  return agentFor(s.plugin, 'hero', { sensors: ['sight'] });
}

describe('nearby', () => {
  it('lists characters and objects within the radius, nearest first, with sight through obstacles', async () => {
    const agent = await meadow();
    const result = await agent.call('nearby', {});
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.output).toEqual({
      radius: 400,
      objects: [
        { id: 'apple_a', kind: 'apple', role: 'object', x: 150, y: 100, distance: 50, visible: true },
        { id: 'mira', kind: 'villager', role: 'character', x: 100, y: 300, distance: 200, visible: false },
      ],
    });
  });

  it('takes a smaller radius, a limit and a kind', async () => {
    const agent = await meadow();
    expect(await agent.call('nearby', { radius: 100 })).toMatchObject({ ok: true, output: { radius: 100, objects: [{ id: 'apple_a' }] } });
    expect(await agent.call('nearby', { limit: 1 })).toMatchObject({ ok: true, output: { objects: [{ id: 'apple_a' }] } });
    const villagers = await agent.call('nearby', { kind: 'villager' });
    expect(villagers.ok && (villagers.output['objects'] as unknown[]).length).toBe(1);
  });

  it('refuses a radius past the perception radius, a limit past the most, and unknown fields', async () => {
    const agent = await meadow({ perceptionRadius: 250 });
    expect(await agent.call('nearby', { radius: 251 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('nearby', { limit: 33 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('nearby', { everything: true })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('with an unbounded perception radius, sees the whole scene and its manifest stays JSON', async () => {
    const agent = await meadow({ perceptionRadius: Number.POSITIVE_INFINITY });
    const tool = agent.manifest.tools.find((t) => t.id === 'nearby')!;
    expect(JSON.parse(JSON.stringify(tool.input_schema))).toEqual(tool.input_schema);
    expect(tool.description).toContain('the whole scene');
    const result = await agent.call('nearby', {});
    expect(result.ok && (result.output['objects'] as Array<{ id: string }>).map((seen) => seen.id)).toEqual(['apple_a', 'mira', 'apple_b']);
  });

  it('needs the sight capability', async () => {
    await meadow();
    const blind = await agentFor(s.plugin, 'hero', { sensors: [] });
    expect(await blind.call('nearby', {})).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
  });
});

describe('can_see and position', () => {
  it('can_see says whether the line is clear, how far, and which obstacle blocks it', async () => {
    const agent = await meadow();
    expect(await agent.call('can_see', { target: 'apple_a' })).toMatchObject({ ok: true, output: { target: 'apple_a', visible: true, distance: 50 } });
    expect(await agent.call('can_see', { target: 'mira' })).toMatchObject({
      ok: true,
      output: { target: 'mira', visible: false, distance: 200, blocked_by: 'wall_1' },
    });
    expect(await agent.call('can_see', { target: 'wall_1' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: expect.stringContaining('no character or object "wall_1"') },
    });
    expect(await agent.call('can_see', {})).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('an obstacle that is a game object blocks by its bounds, wherever it has moved', async () => {
    const agent = await meadow();
    const crate = s.scene.add.rectangle(125, 300, 20, 20);
    s.plugin.addObstacle(crate, { id: 'crate' });
    expect(await agent.call('can_see', { target: 'apple_a' })).toMatchObject({ ok: true, output: { visible: true } });
    crate.setPosition(125, 100);
    expect(await agent.call('can_see', { target: 'apple_a' })).toMatchObject({ ok: true, output: { visible: false, blocked_by: 'crate' } });
  });

  it('position reports where the caller stands', async () => {
    const agent = await meadow();
    expect(await agent.call('position', {})).toMatchObject({ ok: true, output: { id: 'hero', x: 100, y: 100, moving: false } });
  });
});
