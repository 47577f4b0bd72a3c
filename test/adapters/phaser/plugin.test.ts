// @vitest-environment jsdom
// The Scene plugin's life: installed from the game config, a capsule from the scene's start, its
// clock following the scene's updates, and everything unhooked at shutdown and destroy.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { AiccScenePlugin, aiccScenePlugin } from '../../../src/adapters/phaser/index.js';
import { createCapsule } from '../../../src/index.js';
import { ManualClock } from '../../../src/base/clock.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { agentFor, FRAME_MS, installedPhaserVersion, makeTexture, play, settle, stage, type Stage } from './harness.js';

let current: Stage | undefined;
afterEach(() => {
  current?.destroy();
  current = undefined;
});

async function open(options: Parameters<typeof stage>[0] = {}): Promise<Stage> {
  current = await stage(options);
  return current;
}

/** The plugin's own listeners on the scene's emitter (its lifecycle methods are prototype methods). */
function ours(s: Stage): Record<string, number> {
  const events = s.scene.sys.events;
  const proto = AiccScenePlugin.prototype;
  const count = (event: string, method: (...args: never[]) => unknown): number => events.listeners(event).filter((fn) => fn === method).length;
  return {
    update: count('update', proto.update),
    shutdown: count('shutdown', proto.shutdown),
    start: count('start', proto.start),
    destroy: count('destroy', proto.destroy),
    setdata: events.listenerCount('setdata'),
  };
}

describe('AiccScenePlugin: installation and the clock', () => {
  it('runs on the Phaser the test project names: 4 by default, 3.60 in the "phaser 3.60" project', async () => {
    const s = await open();
    expect(s.Phaser.VERSION).toBe(installedPhaserVersion());
    expect(s.Phaser.VERSION).toMatch(process.env['AICC_PHASER'] === undefined ? /^4\./ : /^3\.60\./);
  });

  it('is installed from the game config under its mapping and runs a capsule of its own from the scene start', async () => {
    const s = await open();
    expect(s.plugin).toBeInstanceOf(AiccScenePlugin);
    expect(s.plugin.capsule.world).toEqual({ name: 'main', kind: '2d' });
    expect(s.plugin.capsule.tickMode).toBe('fixed');
    expect(s.plugin.capsule.tickRateHz).toBe(10);
  });

  it('steps the capsule by each scene update’s delta: its clock is scene time, ticks fall due on it', async () => {
    const s = await open();
    const capsule = s.plugin.capsule;
    const start = capsule.clock.now();
    s.step(5, 20); // 100 ms: one tick at 10 Hz
    expect(capsule.clock.now() - start).toBeCloseTo(100, 6);
    expect(capsule.tick).toBe(1);
    s.step(1, 250); // two more ticks due within this one frame
    expect(capsule.tick).toBe(3);
    expect(capsule.clock.now() - start).toBeCloseTo(350, 6);
    expect(s.plugin.frameStats().frames).toBe(6);
  });

  it('serves fixed-mode calls at the ticks scene updates bring, and the host never hears clock_stalled', async () => {
    const s = await open();
    const capsule = s.plugin.capsule;
    s.plugin.registerTools({ only: ['position'], overrides: { position: { limits: { calls_per_minute: 6000 } } } });
    s.plugin.addCharacter('hero', s.scene.add.sprite(10, 10, makeTexture(s.scene)));
    const errors: string[] = [];
    capsule.on('error', (error) => errors.push(error.code));
    const agent = await agentFor(s.plugin, 'hero', { sensors: ['sight'] });
    let served = 0;
    for (let frame = 0; frame < 600; frame++) {
      void agent.call('position', {}).then((result) => void (served += result.ok ? 1 : 0));
      await play(s, 1); // ten seconds of scene time, a call every frame
    }
    expect(capsule.tick).toBe(100);
    expect(served).toBeGreaterThan(590);
    expect(errors).toEqual([]);
  });

  it('a paused scene gets no updates, so its capsule’s time stands still', async () => {
    const s = await open();
    s.step(3);
    const before = s.plugin.capsule.clock.now();
    s.scene.scene.pause();
    s.step(10);
    expect(s.plugin.capsule.clock.now()).toBe(before);
    s.scene.scene.resume();
    s.step(1, 40);
    expect(s.plugin.capsule.clock.now()).toBeCloseTo(before + 40, 6);
  });

  it('with a capsule of the game’s own, uses it, and leaves its clock alone when driveClock is false', async () => {
    const clock = new ManualClock();
    const capsule = createCapsule({ world: { name: 'Shared', kind: '2d' }, clock, tickMode: 'fixed' });
    const s = await open({ plugin: { capsule, driveClock: false } });
    expect(s.plugin.capsule).toBe(capsule);
    s.step(10, 50);
    expect(clock.now()).toBe(0);
    expect(capsule.tick).toBe(0);
  });

  it('installed into a scene that is already running, it starts at once', async () => {
    const s = await open();
    s.game.plugins.installScenePlugin('AiccLate', aiccScenePlugin({ world: { name: 'Late', kind: '2d' } }), 'late', s.scene);
    const plugin = (s.scene as unknown as { late: AiccScenePlugin }).late;
    expect(plugin.capsule.world.name).toBe('Late');
    s.step(1, 100);
    expect(plugin.capsule.tick).toBe(1);
  });

  it('a capsule the game disposes itself is no longer driven, and the game loop goes on', async () => {
    const capsule = createCapsule({ world: { name: 'Shared', kind: '2d' }, clock: new ManualClock() });
    const s = await open({ plugin: { capsule } });
    s.step(2);
    capsule.dispose();
    expect(() => s.step(3)).not.toThrow();
    expect(() => s.plugin.capsule).toThrow(expect.objectContaining({ code: 'AICC_NOT_CONNECTED' }));
    expect(s.plugin.frameStats().frames).toBe(5);
  });

  it('refuses bad options with a CapsuleError naming the option', () => {
    expect(() => aiccScenePlugin({ perceptionRadius: -1 })).toThrow(
      expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringContaining('perceptionRadius must be a number > 0') }),
    );
    const capsule = createCapsule({ world: { name: 'x', kind: '2d' } });
    expect(() => aiccScenePlugin({ capsule, world: { name: 'y', kind: '2d' } })).toThrow(/with options.capsule, configure that capsule instead/);
  });
});

describe('AiccScenePlugin: registerTools', () => {
  it('binds the tools as every adapter does, { handles, dispose }: disposing one binding removes its tools alone', async () => {
    const s = await open();
    const capsule = s.plugin.capsule;
    const senses = s.plugin.registerTools({ only: ['position', 'nearby'] });
    const legs = s.plugin.registerTools({ only: ['move_to'] });
    expect(senses.handles.map((handle) => handle.id)).toEqual(['position', 'nearby']);
    expect(s.plugin.counts().tools).toBe(3);
    senses.dispose();
    senses.dispose();
    expect(capsule.tools().map((tool) => tool.id)).toEqual(['move_to']);
    expect(s.plugin.counts().tools).toBe(1);
    // Their ids are free again: registered anew, under a binding of its own.
    expect(s.plugin.registerTools({ only: ['position'] }).handles).toHaveLength(1);
    expect(legs.handles).toHaveLength(1);
  });

  it('registers all or none: a clash with a game tool leaves none of the Phaser tools behind', async () => {
    // A capsule of the game's (ajv checks its own tool), holding a `stop` of its own.
    const capsule = createCapsule({ world: { name: 'Shared', kind: '2d' }, clock: new ManualClock() });
    const s = await open({ plugin: { capsule } });
    capsule.registerTool({ id: 'stop', class: 'actuator', description: 'The game’s own.', input_schema: {}, output_schema: {}, handler: () => ({}) });
    expect(() => s.plugin.registerTools()).toThrow(expect.objectContaining({ code: 'AICC_DUPLICATE_TOOL' }));
    expect(capsule.tools().map((tool) => tool.id)).toEqual(['stop']);
    expect(s.plugin.counts().tools).toBe(0);
    expect(s.plugin.registerTools({ overrides: { stop: { id: 'halt' } } }).handles).toHaveLength(9);
  });
});

describe('AiccScenePlugin: shutdown and destroy', () => {
  it('shutdown unhooks everything it hooked, removes its tools and disposes the capsule it made', async () => {
    const s = await open({ plugin: { sceneDataEntity: 'world' } });
    const plugin = s.plugin;
    const capsule = plugin.capsule;
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const wall = s.scene.physics.add.staticImage(300, 100, key);
    plugin.addCharacter('hero', hero);
    plugin.addObstacle(wall, { id: 'wall' });
    plugin.registerTools();
    plugin.collider(hero, wall);
    const agent = await agentFor(plugin, 'hero', { actuators: ['legs', 'voice'] });
    expect(ours(s)).toEqual({ update: 1, shutdown: 1, start: 1, destroy: 1, setdata: 1 });
    const world = s.scene.physics.world;
    expect(world.listenerCount('worldstep')).toBe(1);
    expect(hero.listenerCount('changedata')).toBe(1);
    expect(plugin.counts()).toMatchObject({ entities: 2, tools: 9, sessions: 1 });

    s.scene.scene.stop();
    s.step();
    await settle();
    expect(plugin.counts()).toEqual({
      entities: 0,
      walks: 0,
      bubbles: 0,
      contacts: 0,
      hookedEmitters: 0,
      tools: 0,
      sessions: 0,
      droppedContacts: 0,
      unfitData: 0,
    });
    // Still listening for a restart and for the scene's destruction; nothing else.
    expect(ours(s)).toEqual({ update: 0, shutdown: 0, start: 1, destroy: 1, setdata: 0 });
    expect(hero.listenerCount('changedata')).toBe(0);
    expect(hero.listenerCount('destroy')).toBe(0);
    expect(world.listenerCount('worldstep')).toBe(0);
    expect(() => capsule.registerTool({} as never)).toThrow(expect.objectContaining({ code: 'AICC_DISPOSED' }));
    expect(agent.state).toBe('closed');
    expect(() => plugin.capsule).toThrow(expect.objectContaining({ code: 'AICC_NOT_CONNECTED' }));
  });

  it('a restarted scene gets a fresh capsule, and shutting down again unhooks again', async () => {
    const s = await open();
    const first = s.plugin.capsule;
    s.scene.scene.restart();
    s.step();
    const second = s.plugin.capsule;
    expect(second).not.toBe(first);
    expect(s.scene.sys.events.listenerCount('update')).toBeGreaterThan(0);
    s.step(2, 50);
    expect(second.tick).toBe(1);
    s.scene.scene.stop();
    s.step();
    expect(() => second.step(1)).toThrow(CapsuleError);
  });

  it('a capsule given by the game stays open at shutdown, but the sessions and tools the plugin opened go', async () => {
    const capsule = createCapsule({ world: { name: 'Shared', kind: '2d' }, clock: new ManualClock() });
    const s = await open({ plugin: { capsule } });
    s.plugin.addCharacter('hero', s.scene.add.rectangle(10, 10, 8, 8));
    s.plugin.registerTools({ only: ['position'] });
    const agent = await agentFor(s.plugin, 'hero');
    s.scene.scene.stop();
    s.step();
    await settle();
    expect(agent.state).toBe('closed');
    expect(capsule.sessions()).toEqual([]);
    expect(() =>
      capsule.registerTool({ id: 'position', class: 'sensor', description: 'd', input_schema: {}, output_schema: {}, handler: () => ({}) }),
    ).not.toThrow();
  });

  it('game.destroy runs the scene’s DESTROY: the plugin unhooks from the scene for good', async () => {
    const s = await open();
    const capsule = s.plugin.capsule;
    const plugin = s.plugin;
    plugin.addObject('crate', s.scene.add.rectangle(50, 50, 10, 10));
    const events = s.scene.sys.events;
    const off = vi.spyOn(events, 'off');
    current = undefined;
    s.destroy();
    expect(plugin.counts()).toMatchObject({ entities: 0, hookedEmitters: 0 });
    expect(() => capsule.step(1)).toThrow(expect.objectContaining({ code: 'AICC_DISPOSED' }));
    // Phaser clears the emitter after DESTROY anyway; the plugin takes its own listeners off first.
    const removed = off.mock.calls.map(([event, fn]) => [event, fn]);
    for (const [event, method] of [
      ['update', plugin.update],
      ['start', plugin.start],
      ['destroy', plugin.destroy],
    ] as const)
      expect(removed).toContainEqual([event, method]);
  });

  it('an entity whose game object is destroyed leaves the registry, its hooks with it', async () => {
    const s = await open();
    const box = s.scene.add.rectangle(50, 50, 10, 10);
    s.plugin.addObject('crate', box);
    expect(box.listenerCount('setdata')).toBe(1);
    box.destroy();
    expect(s.plugin.entities.get('crate')).toBeUndefined();
    expect(s.plugin.counts().hookedEmitters).toBe(0);
  });

  it('counts frames while running; time in the capsule is measured around its work', async () => {
    const s = await open();
    s.step(4, FRAME_MS);
    const stats = s.plugin.frameStats();
    expect(stats.frames).toBe(4);
    expect(stats.capsuleMs).toBeGreaterThanOrEqual(0);
  });
});
