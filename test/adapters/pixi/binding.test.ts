// @vitest-environment jsdom
// The PixiJS binding against PixiJS itself (its scene graph and bounds; no renderer): the tools an
// agent gets, what they perceive and do on the stage, the events they cause, and the binding's
// lifecycle — on the newest PixiJS 8 and, in the "pixi 8.0" project, on 8.0.0.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ticker, VERSION } from 'pixi.js';
import { describe, expect, it } from 'vitest';
import { PIXI_TOOL_NAMES, PixiBinding } from '../../../src/adapters/pixi/index.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { makeCapsule } from '../../helpers.js';
import { frames, ok, play, square, stage } from './fixture.js';

function expectCapsuleError(run: () => unknown, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CapsuleError);
    expect((error as CapsuleError).code).toBe('AICC_INVALID_OPTION');
    expect((error as CapsuleError).message).toMatch(message);
    return;
  }
  throw new Error('expected a CapsuleError');
}

describe('the PixiJS these tests run on', () => {
  it('is the one the test project names: the `pixi.js` dev dependency by default, 8.0.0 in the "pixi 8.0" project', () => {
    const name = process.env['AICC_PIXI'] ?? 'pixi.js';
    const installed = JSON.parse(readFileSync(join(import.meta.dirname, '../../../node_modules', name, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(installed.version);
    expect(VERSION).toMatch(process.env['AICC_PIXI'] === undefined ? /^8\.(?!0\.)/ : /^8\.0\.0$/);
  });
});

describe('PixiBinding: connect', () => {
  it('registers every PixiJS tool, in order, and agents see them in the manifest', async () => {
    const s = stage();
    expect(s.binding.handles.map((handle) => handle.id)).toEqual([...PIXI_TOOL_NAMES]);
    const { agent } = await play(s, 'mira');
    expect(agent.manifest.tools.map((tool) => tool.id)).toEqual([...PIXI_TOOL_NAMES]);
    expect(agent.manifest.tools.find((tool) => tool.id === 'say')).toMatchObject({
      class: 'actuator',
      requires_capability: 'voice',
      limits: { calls_per_minute: 20 },
    });
  });

  it('registers only the tools asked for, under the ids given, and refuses what it cannot do', () => {
    const s = stage({ binding: { tools: { only: ['position', 'move_to'], overrides: { move_to: { id: 'walk_to' } } } } });
    expect(s.binding.handles.map((handle) => handle.id)).toEqual(['position', 'walk_to']);
    expectCapsuleError(() => s.binding.connect(), /already connected/);
    expectCapsuleError(() => stage({ binding: { tools: { only: ['fly' as never] } } }), /"fly", which is not a PixiJS tool/);
    const { capsule } = makeCapsule();
    expectCapsuleError(() => new PixiBinding(capsule, { fieldOfView: 360 }), /fieldOfView must be below 360/);
    expectCapsuleError(() => new PixiBinding(capsule, { perceptionRadius: Number.POSITIVE_INFINITY }), /perceptionRadius must be a finite number > 0/);
    expectCapsuleError(() => new PixiBinding(capsule, { maxBodies: 0 }), /maxBodies must be an integer >= 1/);
    expectCapsuleError(() => new PixiBinding(capsule).connect({ ticker: {} as Ticker }), /ticker must be a PixiJS Ticker/);
  });

  it('checks bodies as they are added: ids, duplicates, kinds, speeds, what they are, and how many', () => {
    const { capsule } = makeCapsule();
    const binding = new PixiBinding(capsule, { maxBodies: 2 });
    expectCapsuleError(() => binding.addCharacter('no spaces', square(0, 0)), /id must match/);
    expectCapsuleError(() => binding.addCharacter('__proto__x', {} as never), /expected a display object/);
    expectCapsuleError(() => binding.addObject('rock', square(0, 0), { kind: '' }), /kind must be 1–32/);
    expectCapsuleError(() => binding.addCharacter('mira', square(0, 0), { speed: 0 }), /speed must be a finite number > 0/);
    expectCapsuleError(() => binding.addObstacle('wall', { x: 0, y: 0, width: -1, height: 1 }), /display object or a rectangle/);
    binding.addCharacter('mira', square(0, 0)).addObstacle('wall', { x: 0, y: 0, width: 1, height: 1 });
    expectCapsuleError(() => binding.addObject('mira', square(0, 0)), /there is a body "mira" already/);
    expectCapsuleError(() => binding.addObject('apple', square(0, 0)), /holds 2 bodies \(maxBodies\)/);
    const gone = square(0, 0);
    gone.destroy();
    binding.remove('wall');
    expectCapsuleError(() => binding.addObject('apple', gone), /destroyed already/);
  });
});

describe('the sensors', () => {
  it('nearby: nearest first within the radius, sight through the wall, kinds, limits and how many more', async () => {
    const s = stage();
    const { agent } = await play(s, 'mira');
    expect(ok(await agent.call('nearby', {}))).toEqual({
      radius: 300,
      objects: [
        { id: 'ada', kind: 'villager', role: 'character', x: 160, y: 100, distance: 60, visible: false },
        { id: 'apple', kind: 'apple', role: 'object', x: 100, y: 160, distance: 60, visible: true },
      ],
      more: 0,
    });
    expect(ok(await agent.call('nearby', { limit: 1 }))).toMatchObject({ objects: [{ id: 'ada' }], more: 1 });
    expect(ok(await agent.call('nearby', { kind: 'apple', radius: 50 }))).toMatchObject({ objects: [], more: 0 });
    const tooFar = await agent.call('nearby', { radius: 301 });
    expect(tooFar.ok === false && tooFar.error.code).toBe('invalid_input');
  });

  it('can_see: the first obstacle in the way, and clear errors for unknown ids and oneself', async () => {
    const s = stage();
    const { agent } = await play(s, 'mira');
    expect(ok(await agent.call('can_see', { target: 'ada' }))).toEqual({ target: 'ada', visible: false, distance: 60, blocked_by: 'wall' });
    expect(ok(await agent.call('can_see', { target: 'apple' }))).toEqual({ target: 'apple', visible: true, distance: 60 });
    for (const [target, message] of [
      ['wall', /no character or object "wall"/],
      ['mira', /"mira" is you/],
      ['nobody', /no character or object "nobody"/],
    ] as const) {
      const outcome = await agent.call('can_see', { target });
      expect(outcome.ok === false && outcome.error.code).toBe('execution_failed');
      expect(outcome.ok === false && outcome.error.message).toMatch(message);
    }
  });

  it('in_view: the cone along the way the character faces, which turns with its walks', async () => {
    const s = stage();
    const { agent } = await play(s, 'mira');
    // Facing right (0°) at first: Ada is ahead; the apple, straight below, is outside a 120° cone.
    expect(ok(await agent.call('in_view', {}))).toMatchObject({ fov: 120, range: 300, objects: [{ id: 'ada', visible: false }], more: 0 });
    ok(await agent.call('move_to', { x: 100, y: 130 }));
    expect(ok(await agent.call('position', {}))).toMatchObject({ facing: 90, moving: true, target: { x: 100, y: 130 } });
    expect(ok(await agent.call('in_view', {}))).toMatchObject({ objects: [{ id: 'apple' }] });
  });
});

describe('the actuators and their events', () => {
  it('move_to walks over frames, and the walker alone hears that it arrived', async () => {
    const s = stage({ binding: { bounds: { x: 0, y: 0, width: 400, height: 300 } } });
    const mira = await play(s, 'mira');
    const ada = await play(s, 'ada');
    expect(ok(await mira.agent.call('move_to', { x: 100, y: 40, speed: 100 }))).toEqual({
      from: { x: 100, y: 100 },
      to: { x: 100, y: 40 },
      distance: 60,
      speed: 100,
      eta_ms: 600,
    });
    await frames(s.binding, 3, 100);
    expect(s.mira.y).toBeCloseTo(70);
    await frames(s.binding, 4, 100);
    expect(s.mira.position).toMatchObject({ x: 100, y: 40 });
    expect(mira.events).toContainEqual({
      topic: 'state_change',
      payload: { entity: 'mira', field: 'moving', value: false, previous: true, reason: 'arrived', x: 100, y: 40 },
    });
    expect(ada.events.filter((event) => event.topic === 'state_change')).toEqual([]);
    const outside = await mira.agent.call('move_to', { x: 500, y: 40 });
    expect(outside.ok === false && outside.error.message).toMatch(/outside the stage; x must be within 0..400/);
  });

  it('a walk into the wall ends where the wall begins, blocked, naming it; stop ends a walk where it stands', async () => {
    const s = stage();
    const mira = await play(s, 'mira');
    ok(await mira.agent.call('move_to', { x: 200, y: 100, speed: 100 }));
    await frames(s.binding, 5, 100);
    // Flush against the wall's face (x 130), not a stride short of it, and not in it.
    expect(s.mira.x).toBeGreaterThan(129);
    expect(s.mira.x).toBeLessThan(130);
    expect(mira.events).toContainEqual({ topic: 'state_change', payload: expect.objectContaining({ reason: 'blocked', blocked_by: 'wall' }) });
    ok(await mira.agent.call('move_to', { x: 100, y: 20, speed: 100 }));
    await frames(s.binding, 2, 100);
    expect(ok(await mira.agent.call('stop', {}))).toMatchObject({ was_moving: true });
    expect(ok(await mira.agent.call('stop', {}))).toMatchObject({ was_moving: false });
    expect(mira.events.at(-1)).toMatchObject({ payload: { reason: 'stopped' } });
  });

  it('say: the game shows it, those in earshot hear it (a line to one is overheard), and position says it for a while', async () => {
    const s = stage({ binding: { sayMs: 1000 } });
    const mira = await play(s, 'mira');
    const ada = await play(s, 'ada');
    const far = await play(s, 'far');
    expect(ok(await mira.agent.call('say', { text: 'Apples!', to: 'ada' }))).toEqual({ text: 'Apples!', heard_by: ['ada'] });
    await frames(s.binding, 2, 50);
    expect(s.said).toEqual([['mira', 'Apples!']]);
    expect(ada.events).toContainEqual({ topic: 'agent_message', payload: { from: 'mira', text: 'Apples!', to: 'ada' } });
    expect(far.events).toEqual([]);
    expect(ok(await mira.agent.call('position', {}))).toMatchObject({ saying: 'Apples!' });
    await frames(s.binding, 10, 100);
    expect(ok(await mira.agent.call('position', {}))).not.toHaveProperty('saying');
    const nobody = await mira.agent.call('say', { text: 'hi', to: 'apple' });
    expect(nobody.ok === false && nobody.error.message).toMatch(/no character "apple" here/);
  });

  it('collisions: begin when a walker overlaps the apple, end when it leaves, to the pair and those near', async () => {
    const s = stage();
    const mira = await play(s, 'mira');
    ok(await mira.agent.call('move_to', { x: 100, y: 200, speed: 200 }));
    await frames(s.binding, 10, 50);
    const collisions = mira.events.filter((event) => event.topic === 'collision').map((event) => event.payload);
    expect(collisions).toEqual([
      { a: 'apple', b: 'mira', phase: 'begin', kind: 'overlap', x: 100, y: expect.any(Number) },
      { a: 'apple', b: 'mira', phase: 'end', kind: 'overlap', x: 100, y: expect.any(Number) },
    ]);
    expect(s.binding.touching()).toEqual([]);
  });
});

describe('PixiBinding: lifecycle', () => {
  it('a destroyed display object leaves the stage, its walk without a word; its agent hears it is gone', async () => {
    const s = stage();
    const mira = await play(s, 'mira');
    ok(await mira.agent.call('move_to', { x: 100, y: 20 }));
    s.mira.destroy();
    expect(s.binding.bodies.get('mira')).toBeUndefined();
    await frames(s.binding, 3, 100);
    const outcome = await mira.agent.call('position', {});
    expect(outcome.ok === false && outcome.error).toMatchObject({ code: 'execution_failed', retryable: true });
    expect(mira.events.filter((event) => event.topic === 'state_change')).toEqual([]);
  });

  it('a PixiJS Ticker drives it until dispose, which removes the tools and forgets the bodies', () => {
    const s = stage({ connect: false });
    const ticker = new Ticker();
    ticker.autoStart = false;
    s.binding.connect({ ticker });
    const before = s.clock.now();
    ticker.update(performance.now() + 100);
    expect(s.clock.now()).toBeGreaterThan(before);
    expect(s.binding.frameStats().frames).toBe(1);
    s.binding.dispose();
    s.binding.dispose();
    const after = s.clock.now();
    ticker.update(performance.now() + 1000);
    expect(s.clock.now()).toBe(after);
    expect(s.binding.handles).toEqual([]);
    expect(s.capsule.tools()).toEqual([]);
    expectCapsuleError(() => s.binding.addCharacter('x', square(0, 0)), /disposed/);
  });
});
