import { readFileSync } from 'node:fs';
import { type Mesh, Object3D, REVISION, Scene, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { CapsuleBinding, THREE_TOOL_NAMES, type AnimationLoopHost } from '../../../src/adapters/three/index.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { echoTool, makeCapsule, moveTool, settle } from '../../helpers.js';
import { at, cube, frames, ok, play, stage } from './fixture.js';

/** A renderer as far as the binding cares: it holds the animation loop, and the test runs its frames. */
class FakeRenderer implements AnimationLoopHost {
  loop: ((time: number) => void) | null = null;
  calls: Array<'set' | 'null'> = [];
  setAnimationLoop(callback: ((time: number) => void) | null): void {
    this.loop = callback;
    this.calls.push(callback === null ? 'null' : 'set');
  }
  frame(time: number): void {
    this.loop!(time);
  }
}

function expectCapsuleError(run: () => unknown, code: string, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CapsuleError);
    expect((error as CapsuleError).code).toBe(code);
    expect((error as CapsuleError).message).toMatch(message);
    return;
  }
  throw new Error('expected a CapsuleError');
}

describe('the three these tests run on', () => {
  it('is the one the test project names: the `three` dev dependency by default, 0.150 in the "three 0.150" project', () => {
    const installed = JSON.parse(
      readFileSync(new URL(`../../../node_modules/${process.env['AICC_THREE'] ?? 'three'}/package.json`, import.meta.url), 'utf8'),
    ) as { version: string };
    expect(`0.${REVISION}.0`).toBe(installed.version);
    if (process.env['AICC_THREE'] !== undefined) expect(REVISION).toBe('150');
  });
});

describe('CapsuleBinding: connect', () => {
  it('registers every Three tool, in order, and agents see them in the manifest', async () => {
    const s = stage();
    expect(s.binding.handles.map((handle) => handle.id)).toEqual([...THREE_TOOL_NAMES]);
    const { agent } = await play(s, 'ada');
    expect(agent.manifest.tools.map((tool) => tool.id)).toEqual([...THREE_TOOL_NAMES]);
    expect(agent.manifest.tools.find((tool) => tool.id === 'look_ahead')).toMatchObject({
      class: 'sensor',
      requires_capability: 'sight',
      limits: { calls_per_minute: 120 },
      strict_input: true,
    });
  });

  it('registers only the tools asked for, under the ids and limits given', () => {
    const s = stage({
      binding: {
        tools: { only: ['position', 'move_to'], overrides: { move_to: { id: 'walk_to', limits: { calls_per_minute: 6 }, requires_capability: 'feet' } } },
      },
    });
    expect(s.binding.handles.map((handle) => handle.id)).toEqual(['position', 'walk_to']);
  });

  it('refuses unknown tool names, a second connect, and a scene that is not an Object3D', () => {
    expectCapsuleError(() => stage({ binding: { tools: { only: ['fly' as never] } } }), 'AICC_INVALID_OPTION', /"fly", which is not a Three tool/);
    expectCapsuleError(() => stage({ binding: { tools: { overrides: { fly: {} } as never } } }), 'AICC_INVALID_OPTION', /overrides names "fly"/);
    const s = stage();
    expectCapsuleError(() => s.binding.connect(), 'AICC_INVALID_OPTION', /already connected/);
    const { capsule } = makeCapsule();
    expectCapsuleError(() => new CapsuleBinding(capsule, {} as Object3D), 'AICC_INVALID_OPTION', /scene must be a THREE.Scene/);
    expectCapsuleError(
      () => new CapsuleBinding(capsule, new Scene()).connect({ renderer: {} as AnimationLoopHost }),
      'AICC_INVALID_OPTION',
      /setAnimationLoop/,
    );
  });

  it('a clash with a game tool throws AICC_DUPLICATE_TOOL and leaves none of its tools behind; renaming fixes it', () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(moveTool({ id: 'stop' }));
    const binding = new CapsuleBinding(capsule, new Scene());
    expectCapsuleError(() => binding.connect(), 'AICC_DUPLICATE_TOOL', /"stop" is already registered/);
    expect(binding.handles).toEqual([]);
    expect(() => capsule.registerTool({ ...echoTool, id: 'position' })).not.toThrow();
    const renamed = new CapsuleBinding(capsule, new Scene(), { tools: { only: ['stop'], overrides: { stop: { id: 'halt' } } } });
    expect(renamed.connect().handles.map((handle) => handle.id)).toEqual(['halt']);
  });
});

describe('CapsuleBinding: objects', () => {
  it('refuses bad ids, non-objects, a second registration and more than maxObjects', () => {
    const { capsule } = makeCapsule();
    const binding = new CapsuleBinding(capsule, new Scene(), { maxObjects: 2 });
    const mesh = cube('a', 0, 0);
    expectCapsuleError(() => binding.add('two words', mesh), 'AICC_INVALID_OPTION', /no spaces/);
    expectCapsuleError(() => binding.add('a', {} as Mesh), 'AICC_INVALID_OPTION', /expected a THREE.Object3D/);
    binding.add('a', mesh);
    expectCapsuleError(() => binding.add('a', cube('b', 0, 0)), 'AICC_INVALID_OPTION', /already registered under this id/);
    expectCapsuleError(() => binding.add('b', mesh), 'AICC_INVALID_OPTION', /already registered as "a"/);
    expectCapsuleError(() => binding.add('c', cube('c', 0, 0), { bounds: 'capsule' as never }), 'AICC_INVALID_OPTION', /bounds must be/);
    binding.add('b', cube('b', 0, 0));
    expectCapsuleError(() => binding.add('c', cube('c', 0, 0)), 'AICC_INVALID_OPTION', /2 objects are registered already/);
    expect(binding.remove('a')).toBe(true);
    expect(binding.remove('a')).toBe(false);
    expect(() => binding.add('c', cube('c', 0, 0))).not.toThrow();
  });
});

describe('CapsuleBinding: the clock', () => {
  it("update(dt) moves objects and steps the capsule: fixed ticks fall due on the capsule's clock", async () => {
    const s = stage({ capsule: { tickMode: 'fixed', tickRateHz: 10 } });
    const before = s.clock.now();
    await frames(s.binding, 3, 100);
    expect(s.clock.now() - before).toBe(300);
    expect(s.capsule.tick).toBe(3);

    // In fixed mode a call waits for the next tick; the walk then goes on frame by frame.
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 1, z: 0 });
    await settle();
    await frames(s.binding, 1, 100); // the tick that runs the call, and the walk's first frame
    await frames(s.binding, 5, 100);
    expect(ok(await walk)).toMatchObject({ arrived: true, position: { x: 1, z: 0 } });
  });

  it('stepCapsule: false leaves the capsule alone', () => {
    const s = stage({ capsule: { tickMode: 'fixed' }, binding: { stepCapsule: false } });
    const before = s.clock.now();
    s.binding.update(500);
    expect(s.clock.now()).toBe(before);
    expect(s.capsule.tick).toBe(0);
  });

  it('refuses a non-finite frame time, and takes one below 0 (a frame stamped before the last read) as no time', () => {
    const s = stage();
    expectCapsuleError(() => s.binding.update(Number.NaN), 'AICC_INVALID_OPTION', /expected a finite number of ms, got NaN/);
    expectCapsuleError(() => s.binding.update(Number.POSITIVE_INFINITY), 'AICC_INVALID_OPTION', /got Infinity/);
    const before = s.clock.now();
    s.binding.update(-7.6);
    expect(s.clock.now()).toBe(before);
  });

  it("runs on the renderer's animation loop: dt from frame times, clamped to maxFrameMs, then onFrame", async () => {
    const renderer = new FakeRenderer();
    const rendered: Array<[number, number]> = [];
    const s = stage({ connect: false, binding: { maxFrameMs: 250 } });
    s.binding.connect({ renderer, onFrame: (dt, time) => rendered.push([dt, time]) });
    expect(renderer.calls).toEqual(['set']);
    const start = s.clock.now();
    renderer.frame(1000);
    renderer.frame(1100);
    renderer.frame(6100); // back from a background tab: passed on as 250 ms
    expect(rendered).toEqual([
      [0, 1000],
      [100, 1100],
      [250, 6100],
    ]);
    expect(s.clock.now() - start).toBe(350);
    expect(s.binding.frameStats().frames).toBe(4); // the stage's own update(0), and these three
  });

  it('frameStats adds up the time spent in each update', () => {
    let time = 0;
    const ticks = [0, 2, 10, 10.5];
    const { capsule } = makeCapsule();
    const binding = new CapsuleBinding(capsule, new Scene(), { now: () => ticks[time++]! });
    binding.update(16);
    binding.update(16);
    expect(binding.frameStats()).toEqual({ frames: 2, capsuleMs: 2.5 });
  });
});

describe('CapsuleBinding: dispose', () => {
  it('unhooks everything: loop given back, walks ended "disposed", tools removed, objects forgotten', async () => {
    const renderer = new FakeRenderer();
    const s = stage({ connect: false });
    s.binding.connect({ renderer });
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    renderer.frame(0);
    renderer.frame(100);

    s.binding.dispose();
    expect(renderer.calls).toEqual(['set', 'null']);
    expect(ok(await walk)).toMatchObject({ arrived: false, end: 'disposed', position: { x: 0, z: -0.2 } });
    expect(s.binding.handles).toEqual([]);
    expect(s.binding.objects.size).toBe(0);
    expect(s.binding.touching()).toEqual([]);
    await settle();
    // The capsule's catalog is the game's again: the tools are gone (the agent hears of it), and their ids are free.
    expect(await ada.call('position', {})).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    expect(() => s.capsule.registerTool(moveTool())).not.toThrow();
    expect(s.binding.motion.active).toBe(0);

    expectCapsuleError(() => s.binding.update(16), 'AICC_DISPOSED', /make a new one/);
    expectCapsuleError(() => s.binding.add('x', new Object3D()), 'AICC_DISPOSED', /CapsuleBinding.add/);
    expect(() => s.binding.dispose()).not.toThrow();
  });

  it('a capsule disposed under a running binding: frames go on, the capsule is left alone', async () => {
    const s = stage();
    const walk = s.binding.motion.moveTo(s.binding.objects.get('ada')!, new Vector3(2, 0, 0), 10);
    s.capsule.dispose();
    expect(() => s.binding.update(100)).not.toThrow(); // walks into the crate: a collision it can no longer send
    expect(() => s.binding.update(100)).not.toThrow();
    expect(await walk).toBe('done');
    expect(at(s.ada)).toEqual({ x: 2, z: 0 });
    expect(s.binding.frameStats().frames).toBe(3);
    expect(() => s.binding.dispose()).not.toThrow();
  });
});
