// @vitest-environment jsdom
// The actuators through a real agent session: move_to / move_by / stop walk a sprite across frames
// (and report the walk's end), play_animation and say act on the scene, and bad calls are refused
// with the right AICC errors.

import { afterEach, describe, expect, it } from 'vitest';
import type { AgentClient } from '../../../src/agent/agentClient.js';
import { agentFor, collect, makeTexture, play, settle, stage, type Stage } from './harness.js';

let s: Stage;
afterEach(() => s?.destroy());

const ALL = { sensors: ['sight'], actuators: ['legs', 'body', 'voice'], generators: ['conjure'] };

/** A scene with the tools registered (event ticks: calls run as they arrive) and a hero at (100, 100). */
async function scene(): Promise<{ s: Stage; hero: Phaser.GameObjects.Sprite; agent: AgentClient }> {
  s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' } } });
  const hero = s.scene.add.sprite(100, 100, makeTexture(s.scene));
  s.plugin.addCharacter('hero', hero, { speed: 120 });
  s.plugin.registerTools();
  return { s, hero, agent: await agentFor(s.plugin, 'hero', ALL) };
}

describe('move_to / move_by / stop', () => {
  it('walks to the point across frames at the given speed, then tells the agent it arrived', async () => {
    const { hero, agent } = await scene();
    const moving = collect(agent, 'state_change');
    const result = await agent.call('move_to', { x: 160, y: 180, speed: 100 });
    expect(result).toMatchObject({ ok: true, output: { from: { x: 100, y: 100 }, to: { x: 160, y: 180 }, distance: 100, speed: 100, eta_ms: 1000 } });
    await play(s, 30); // half a second: half way
    expect(Math.hypot(hero.x - 100, hero.y - 100)).toBeCloseTo(50, 0);
    expect(moving).toEqual([]);
    await play(s, 32);
    expect([hero.x, hero.y]).toEqual([160, 180]);
    expect(moving).toEqual([{ entity: 'hero', field: 'moving', value: false, previous: true, reason: 'arrived', x: 160, y: 180 }]);
  });

  it("tells only the walker that its walk ended; a bystander hears the walker's data change, not its walk", async () => {
    const { hero, agent } = await scene();
    const bystander = s.scene.add.sprite(150, 100, makeTexture(s.scene));
    s.plugin.addCharacter('mira', bystander);
    const mira = await agentFor(s.plugin, 'mira', ALL);
    const heard = collect(mira, 'state_change');
    const moving = collect(agent, 'state_change');
    expect((await agent.call('move_to', { x: 130, y: 100, speed: 120 })).ok).toBe(true);
    await play(s, 30);
    expect(moving).toEqual([expect.objectContaining({ entity: 'hero', field: 'moving', reason: 'arrived' })]);
    hero.setData('mood', 'tired');
    await settle();
    expect(heard).toEqual([{ entity: 'hero', field: 'mood', value: 'tired' }]);
  });

  it('move_by walks by an offset from where the character stands; position reports the walk', async () => {
    const { hero, agent } = await scene();
    expect(await agent.call('move_by', { dx: -40, dy: 0 })).toMatchObject({ ok: true, output: { to: { x: 60, y: 100 }, speed: 120 } });
    await play(s, 10);
    expect(hero.x).toBeLessThan(100);
    expect(await agent.call('position', {})).toMatchObject({ ok: true, output: { id: 'hero', moving: true, target: { x: 60, y: 100 } } });
    await play(s, 30);
    expect(hero.x).toBe(60);
    expect(await agent.call('position', {})).toMatchObject({ ok: true, output: { x: 60, y: 100, moving: false } });
  });

  it('stop halts the walk where the character is', async () => {
    const { hero, agent } = await scene();
    await agent.call('move_to', { x: 400, y: 100 });
    await play(s, 20);
    const stopped = await agent.call('stop', {});
    expect(stopped).toMatchObject({ ok: true, output: { was_moving: true } });
    const x = hero.x;
    await play(s, 20);
    expect(hero.x).toBe(x);
    expect(x).toBeGreaterThan(100);
  });

  it('a body walks under physics and arrives on its target on time, though it is not read every frame', async () => {
    s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' } } });
    const hero = s.scene.physics.add.sprite(100, 100, makeTexture(s.scene));
    s.plugin.addCharacter('hero', hero);
    s.plugin.registerTools({ only: ['move_to'] });
    const agent = await agentFor(s.plugin, 'hero', ALL);
    const moving = collect(agent, 'state_change');
    expect((await agent.call('move_to', { x: 160, y: 180, speed: 100 })).ok).toBe(true);
    await play(s, 54); // 0.9 s of the 1 s walk
    expect(moving).toEqual([]);
    expect(Math.hypot(160 - hero.x, 180 - hero.y)).toBeGreaterThan(2);
    await play(s, 12);
    expect([hero.x, hero.y]).toEqual([160, 180]);
    expect(moving).toEqual([{ entity: 'hero', field: 'moving', value: false, previous: true, reason: 'arrived', x: 160, y: 180 }]);
  });

  it('a body walking into a wall is stopped by the collider; the walk ends as blocked', async () => {
    s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' }, stuckAfterMs: 300 } });
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const wall = s.scene.physics.add.staticImage(200, 100, key).setDisplaySize(16, 200).refreshBody();
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObstacle(wall, { id: 'wall' });
    s.plugin.collider(hero, wall);
    s.plugin.registerTools({ only: ['move_to'] });
    const agent = await agentFor(s.plugin, 'hero', ALL);
    const changes = collect(agent, 'state_change');
    expect((await agent.call('move_to', { x: 300, y: 100 })).ok).toBe(true);
    await play(s, 90);
    expect(hero.x).toBeLessThan(200 - 8);
    expect(hero.x).toBeGreaterThan(170);
    expect(changes).toEqual([expect.objectContaining({ entity: 'hero', field: 'moving', value: false, reason: 'blocked' })]);
  });

  it('refuses bad input with invalid_input, and a point outside the world with execution_failed naming the bounds', async () => {
    const { agent } = await scene();
    expect(await agent.call('move_to', { x: 'east', y: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('move_to', { x: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('move_to', { x: 1, y: 1, run: true })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('move_to', { x: 10, y: 10, speed: 5000 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('move_to', { x: 900, y: 10 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: '(900, 10) is outside the world; x must be within 0..800 and y within 0..600' },
    });
    expect(await agent.call('move_by', { dx: 5000, dy: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('needs the legs capability, and a character the scene has', async () => {
    s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' } } });
    s.plugin.addCharacter('hero', s.scene.add.sprite(100, 100, makeTexture(s.scene)));
    s.plugin.registerTools();
    const lame = await agentFor(s.plugin, 'hero', { actuators: ['voice'] });
    expect(await lame.call('move_to', { x: 1, y: 1 })).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: false } });
    const ghost = await agentFor(s.plugin, 'nobody', ALL);
    expect(await ghost.call('move_to', { x: 1, y: 1 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: expect.stringContaining('"nobody", who is not a character in this scene') },
    });
  });
});

describe('play_animation', () => {
  it('plays a known animation on the caller’s sprite, and names the known ones when asked for another', async () => {
    const { hero, agent } = await scene();
    s.scene.anims.create({ key: 'wave', frames: [{ key: makeTexture(s.scene) }, { key: makeTexture(s.scene) }], frameRate: 4 });
    expect(await agent.call('play_animation', { key: 'wave', repeat: true })).toMatchObject({
      ok: true,
      output: { key: 'wave', frames: 2, duration_ms: 500, repeat: true },
    });
    expect(hero.anims.currentAnim?.key).toBe('wave');
    expect(hero.anims.isPlaying).toBe(true);
    expect(await agent.call('play_animation', { key: 'dance' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: 'there is no animation "dance"; animations: wave' },
    });
  });
});

describe('say', () => {
  it('shows a bubble above the speaker for a while and is heard only within the perception radius', async () => {
    const { hero, agent } = await scene();
    const key = makeTexture(s.scene);
    s.plugin.addCharacter('near', s.scene.add.sprite(200, 100, key));
    s.plugin.addCharacter('far', s.scene.add.sprite(700, 500, key));
    const near = await agentFor(s.plugin, 'near', ALL);
    const far = await agentFor(s.plugin, 'far', ALL);
    const heardNear = collect(near, 'agent_message');
    const heardFar = collect(far, 'agent_message');
    const said = await agent.call('say', { text: 'Apples by the well!', to: 'near', duration_ms: 1000 });
    expect(said).toMatchObject({ ok: true, output: { text: 'Apples by the well!', heard_by: ['near'] } });
    await play(s, 1); // bubbles are drawn at the end of the frame
    const bubble = s.scene.children.list.find((child) => child.type === 'Text') as Phaser.GameObjects.Text;
    expect(bubble.text).toBe('Apples by the well!');
    expect(bubble.x).toBe(hero.x);
    expect(bubble.y).toBeLessThan(hero.y);
    await play(s, 3);
    expect(heardNear).toEqual([{ from: 'hero', text: 'Apples by the well!', to: 'near' }]);
    expect(heardFar).toEqual([]);
    await play(s, 60);
    expect(bubble.visible).toBe(false);
    expect(s.plugin.counts().bubbles).toBe(0);
    // The next line reuses the speaker's bubble rather than making another Text.
    expect(await agent.call('say', { text: 'Anyone?' })).toMatchObject({ ok: true });
    await play(s, 1);
    expect(s.scene.children.list.filter((child) => child.type === 'Text')).toEqual([bubble]);
    expect([bubble.visible, bubble.text]).toEqual([true, 'Anyone?']);
  });

  it('refuses a line that is too long, and someone who is not there', async () => {
    const { agent } = await scene();
    expect(await agent.call('say', { text: 'x'.repeat(141) })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('say', { text: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await agent.call('say', { text: 'hi', to: 'ghost' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: expect.stringContaining('there is no "ghost"') },
    });
    await settle();
    expect(s.plugin.counts().bubbles).toBe(0);
  });
});
