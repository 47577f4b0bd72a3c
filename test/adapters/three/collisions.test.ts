import { Mesh, Object3D, Scene, SphereGeometry } from 'three';
import { describe, expect, it } from 'vitest';
import { CollisionWatcher, type CollisionPayload } from '../../../src/adapters/three/collisions.js';
import { overlaps } from '../../../src/adapters/three/geometry.js';
import { ObjectRegistry } from '../../../src/adapters/three/objects.js';
import { SeededRandom } from '../../../src/adapters/headless/random.js';
import { frames, play, stage } from './fixture.js';
import { settle } from '../../helpers.js';

/** Every collision the capsule emits, as the host's listeners see it. */
function collisionsOf(s: ReturnType<typeof stage>): CollisionPayload[] {
  const seen: CollisionPayload[] = [];
  s.capsule.on('collision', (payload) => seen.push(payload as CollisionPayload));
  return seen;
}

describe('collision events from bounding volumes', () => {
  it('a pair that starts touching is told once ("begin"), however many frames it stays, and once when it parts ("end")', async () => {
    const s = stage();
    const seen = collisionsOf(s);
    // Walk ada's cube into the crate's: they touch when ada's centre reaches x = 3 (15 frames of 0.2).
    s.ada.position.set(2, 0, 0);
    await frames(s.binding, 1, 0);
    expect(seen).toEqual([]);
    for (let i = 0; i < 10; i++) {
      s.ada.position.x += 0.2;
      await frames(s.binding, 1, 100);
    }
    expect(seen).toEqual([{ a: 'ada', b: 'crate', phase: 'begin' }]);
    expect(s.binding.touching()).toEqual([['ada', 'crate']]);
    s.ada.position.set(0, 0, 0);
    await frames(s.binding, 3, 100);
    expect(seen).toEqual([
      { a: 'ada', b: 'crate', phase: 'begin' },
      { a: 'ada', b: 'crate', phase: 'end' },
    ]);
    expect(s.binding.touching()).toEqual([]);
  });

  it('a resting contact that a physics engine leaves a hair in and a hair out, frame after frame, begins once and ends once', async () => {
    const s = stage();
    const seen = collisionsOf(s);
    // Ada's cube rests against the crate's (they touch at x = 3), the solver's jitter 0.01 either way.
    for (let frame = 0; frame < 60; frame++) {
      s.ada.position.x = 3 + (frame % 2 === 0 ? 0.01 : -0.01);
      await frames(s.binding, 1, 16);
    }
    expect(seen).toEqual([{ a: 'ada', b: 'crate', phase: 'begin' }]);
    expect(s.binding.touching()).toEqual([['ada', 'crate']]);
    s.ada.position.x = 3 - 0.04; // still within the default gap of 0.05
    await frames(s.binding, 3, 16);
    expect(seen).toHaveLength(1);
    s.ada.position.x = 3 - 0.06; // parted
    await frames(s.binding, 1, 16);
    expect(seen).toEqual([
      { a: 'ada', b: 'crate', phase: 'begin' },
      { a: 'ada', b: 'crate', phase: 'end' },
    ]);
    expect(s.binding.touching()).toEqual([]);
  });

  it('collisions.gap sets how far apart a pair must be to part: with 0, every hair counts', async () => {
    const s = stage({ binding: { collisions: { gap: 0 } } });
    const seen = collisionsOf(s);
    for (let frame = 0; frame < 6; frame++) {
      s.ada.position.x = 3 + (frame % 2 === 0 ? 0.01 : -0.01);
      await frames(s.binding, 1, 16);
    }
    expect(seen.map((event) => event.phase)).toEqual(['begin', 'end', 'begin', 'end', 'begin', 'end']);
    for (const bad of [-0.1, Number.POSITIVE_INFINITY, Number.NaN, '0.1'] as unknown as number[]) {
      expect(() => stage({ binding: { collisions: { gap: bad } } })).toThrow(
        expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringContaining('collisions.gap must be a finite number >= 0') }),
      );
    }
  });

  it('a walk driven by move_to collides on the way', async () => {
    const s = stage();
    const seen = collisionsOf(s);
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 3.5, z: 0 });
    await settle();
    await frames(s.binding, 20, 100);
    expect((await walk).ok).toBe(true);
    expect(seen).toEqual([{ a: 'ada', b: 'crate', phase: 'begin' }]);
  });

  it('goes to the sessions playing either object (audience "involved"), not to bystanders', async () => {
    const s = stage();
    const ada = await play(s, 'ada');
    const bo = await play(s, 'bo');
    s.ada.position.set(3.2, 0, 0);
    await frames(s.binding, 3, 20);
    expect(ada.events).toEqual([{ topic: 'collision', payload: { a: 'ada', b: 'crate', phase: 'begin' } }]);
    expect(bo.events).toEqual([]);
  });

  it('audience "all" tells every subscribed session; exits: false leaves out "end"', async () => {
    const s = stage({ binding: { collisions: { audience: 'all', exits: false } } });
    const seen = collisionsOf(s);
    const bo = await play(s, 'bo');
    s.ada.position.set(3.2, 0, 0);
    await frames(s.binding, 3, 20);
    s.ada.position.set(0, 0, 0);
    await frames(s.binding, 3, 20);
    expect(bo.events).toEqual([{ topic: 'collision', payload: { a: 'ada', b: 'crate', phase: 'begin' } }]);
    expect(seen).toHaveLength(1);
  });

  it('objects registered with collides: false, and bindings with collisions: false, send nothing', async () => {
    const quiet = stage({ binding: { collisions: false } });
    const seen = collisionsOf(quiet);
    quiet.ada.position.set(4, 0, 0);
    await frames(quiet.binding, 2, 20);
    expect(seen).toEqual([]);

    const s = stage();
    const seenToo = collisionsOf(s);
    const ghost = new Mesh(new SphereGeometry(1));
    s.scene.add(ghost);
    s.binding.add('ghost', ghost, { collides: false });
    s.ada.position.set(0.5, 0, 0);
    await frames(s.binding, 2, 20);
    expect(seenToo).toEqual([]);
  });

  it('sphere bounds use the given radius; a removed object leaves without an "end"', async () => {
    const s = stage();
    const seen = collisionsOf(s);
    const a = new Object3D();
    const b = new Object3D();
    a.position.set(-20, 0, 0);
    b.position.set(-17, 0, 0);
    s.scene.add(a, b);
    s.binding.add('ball_a', a, { bounds: 'sphere', radius: 1 }).add('ball_b', b, { bounds: 'sphere', radius: 0.9 });
    await frames(s.binding, 1, 20);
    expect(seen).toEqual([]); // 3 apart, radii 1.9 together
    b.position.x = -18.5;
    await frames(s.binding, 1, 20);
    expect(seen).toEqual([{ a: 'ball_a', b: 'ball_b', phase: 'begin' }]);
    s.binding.remove('ball_b');
    await frames(s.binding, 2, 20);
    expect(seen.filter((event) => event.phase === 'end')).toEqual([]);
  });
});

describe('CollisionWatcher', () => {
  it('finds exactly the overlapping pairs a test of every pair finds (sweep and prune)', () => {
    const random = new SeededRandom(7);
    const scene = new Scene();
    const objects = new ObjectRegistry();
    for (let i = 0; i < 60; i++) {
      const ball = new Object3D();
      ball.position.set(random.next() * 20, random.next() * 4, random.next() * 20);
      scene.add(ball);
      objects.add(`o${i}`, ball, { bounds: 'sphere', radius: 0.3 + random.next() * 1.2 });
    }
    scene.updateMatrixWorld();
    const told: CollisionPayload[] = [];
    const watcher = new CollisionWatcher(objects, (payload) => told.push(payload));
    watcher.step();

    const all = [...objects.entries()];
    const expected: string[] = [];
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        if (overlaps(objects.volume(all[i]!), objects.volume(all[j]!))) expected.push([all[i]!.id, all[j]!.id].sort().join('+'));
      }
    }
    expect(expected.length).toBeGreaterThan(5);
    expect(told.map((p) => `${p.a}+${p.b}`).sort()).toEqual(expected.sort());
    watcher.step();
    expect(told).toHaveLength(expected.length); // nothing new while nothing moves
  });
});

describe('a collision listener that throws', () => {
  it('does not stop the frame: the other pairs are told and the capsule steps; the error surfaces on its own', async () => {
    const s = stage({ capsule: { tickMode: 'fixed', tickRateHz: 10 } });
    const seen: string[] = [];
    let first = true;
    s.capsule.on('collision', ({ a, b }) => {
      seen.push(`${a}+${b}`);
      if (first) {
        first = false;
        throw new Error('game bug');
      }
    });
    const rethrown: unknown[] = [];
    const onError = (error: unknown): void => void rethrown.push(error);
    process.on('uncaughtException', onError);
    try {
      s.ada.position.set(3.2, 0, 0); // touches the crate
      s.bo.position.set(3.2, 0, 1); // touches ada and the crate
      s.binding.update(100);
      await settle();
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(seen.sort()).toEqual(['ada+bo', 'ada+crate', 'bo+crate']);
    expect(s.capsule.tick).toBe(1);
    expect(rethrown).toEqual([new Error('game bug')]);
  });
});
