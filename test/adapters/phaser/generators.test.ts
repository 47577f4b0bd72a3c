// @vitest-environment jsdom
// spawn: makes an object from a registered template, inside the world, within maxSpawned.

import { afterEach, describe, expect, it } from 'vitest';
import { agentFor, makeTexture, stage, type Stage } from './harness.js';

let s: Stage;
afterEach(() => s?.destroy());

async function orchard(maxSpawned = 64) {
  s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' }, maxSpawned } });
  const key = makeTexture(s.scene);
  s.plugin.addCharacter('gardener', s.scene.add.sprite(100, 100, key));
  const made: string[] = [];
  s.plugin.addTemplate(
    'apple',
    (scene, x, y, id) => {
      made.push(id);
      return scene.add.sprite(x, y, key).setName(id);
    },
    { description: 'a red apple' },
  );
  s.plugin.registerTools({ only: ['spawn', 'nearby'] });
  const agent = await agentFor(s.plugin, 'gardener', { sensors: ['sight'], generators: ['conjure'] });
  return { agent, made };
}

describe('spawn', () => {
  it('makes an object from the template at the point, registered under a new id that nearby then lists', async () => {
    const { agent, made } = await orchard();
    expect(agent.manifest.tools.find((tool) => tool.id === 'spawn')?.description).toContain('apple (a red apple)');
    expect(await agent.call('spawn', { template: 'apple', x: 120, y: 140 })).toMatchObject({
      ok: true,
      output: { id: 'apple_1', template: 'apple', kind: 'apple', x: 120, y: 140 },
    });
    expect(made).toEqual(['apple_1']);
    const sprite = s.scene.children.getByName('apple_1') as Phaser.GameObjects.Sprite;
    expect([sprite.x, sprite.y]).toEqual([120, 140]);
    expect(await agent.call('nearby', {})).toMatchObject({ ok: true, output: { objects: [{ id: 'apple_1', kind: 'apple', role: 'object' }] } });
  });

  it('refuses an unknown template (naming the known ones), a point outside the world, and bad input', async () => {
    const { agent, made } = await orchard();
    expect(await agent.call('spawn', { template: 'pear', x: 1, y: 1 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: 'there is no template "pear"; templates: apple' },
    });
    expect(await agent.call('spawn', { template: 'apple', x: -5, y: 1 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: expect.stringContaining('outside the world') },
    });
    expect(await agent.call('spawn', { template: 'apple', x: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(made).toEqual([]);
  });

  it('holds at most maxSpawned at once (a retryable refusal), and a destroyed one frees its place', async () => {
    const { agent } = await orchard(2);
    expect((await agent.call('spawn', { template: 'apple', x: 10, y: 10 })).ok).toBe(true);
    expect((await agent.call('spawn', { template: 'apple', x: 20, y: 10 })).ok).toBe(true);
    expect(await agent.call('spawn', { template: 'apple', x: 30, y: 10 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', retryable: true, message: expect.stringContaining('already holds 2 spawned things') },
    });
    s.scene.children.getByName('apple_1')!.destroy();
    expect(await agent.call('spawn', { template: 'apple', x: 30, y: 10 })).toMatchObject({ ok: true, output: { id: 'apple_3' } });
  });

  it('needs the conjure capability', async () => {
    await orchard();
    const plain = await agentFor(s.plugin, 'gardener', { sensors: ['sight'] });
    expect(await plain.call('spawn', { template: 'apple', x: 1, y: 1 })).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
  });
});
