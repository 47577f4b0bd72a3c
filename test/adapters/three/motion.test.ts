import { Group, Object3D, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Motion } from '../../../src/adapters/three/motion.js';
import { ObjectRegistry } from '../../../src/adapters/three/objects.js';

function rig() {
  const objects = new ObjectRegistry();
  const motion = new Motion(objects);
  const body = new Object3D();
  const entry = objects.add('body', body);
  return { objects, motion, body, entry };
}

describe('Motion', () => {
  it('moves a little every step, by speed × dt, and settles "done" on the step that arrives', async () => {
    const { motion, body, entry } = rig();
    const done = motion.moveTo(entry, new Vector3(3, 0, 4), 2); // 5 units at 2/s: 2.5 s
    let end: string | undefined;
    void done.then((value) => (end = value));
    motion.step(1000);
    expect(body.position.toArray().map((n) => +n.toFixed(6))).toEqual([1.2, 0, 1.6]);
    motion.step(1000);
    await Promise.resolve();
    expect(end).toBeUndefined();
    motion.step(1000); // the last 1 unit: no overshoot
    expect(body.position.toArray()).toEqual([3, 0, 4]);
    expect(await done).toBe('done');
    expect(motion.active).toBe(0);
  });

  it('a zero or negative step moves nothing', () => {
    const { motion, body, entry } = rig();
    void motion.moveTo(entry, new Vector3(1, 0, 0), 1);
    motion.step(0);
    motion.step(-5);
    expect(body.position.x).toBe(0);
  });

  it("walks to a world point through a moved parent's space", async () => {
    const { objects, motion } = rig();
    const parent = new Group();
    parent.position.set(10, 0, 0);
    const child = new Object3D();
    parent.add(child);
    parent.updateMatrixWorld();
    const entry = objects.add('child', child);
    const done = motion.moveTo(entry, new Vector3(11, 0, 0), 1);
    motion.step(1000);
    expect(await done).toBe('done');
    expect(child.getWorldPosition(new Vector3()).x).toBeCloseTo(11);
    expect(child.position.x).toBeCloseTo(1);
  });

  it('an aborted order stops where it is, but not an order that replaced it', async () => {
    const { motion, body, entry } = rig();
    const first = new AbortController();
    const walk = motion.moveTo(entry, new Vector3(0, 0, 10), 1, undefined, first.signal);
    motion.step(1000);
    first.abort();
    expect(await walk).toBe('stopped');
    motion.step(1000);
    expect(body.position.z).toBe(1);

    const old = new AbortController();
    const replaced = motion.moveTo(entry, new Vector3(0, 0, 10), 1, undefined, old.signal);
    const newer = motion.moveTo(entry, new Vector3(0, 0, 3), 1);
    expect(await replaced).toBe('replaced');
    old.abort(); // too late to matter: the newer walk goes on
    motion.step(2000);
    expect(await newer).toBe('done');
    expect(body.position.z).toBe(3);
  });

  it('removing the object ends its orders "removed"; dispose ends the rest "disposed"', async () => {
    const { objects, motion, entry } = rig();
    const other = objects.add('other', new Object3D());
    const walk = motion.moveTo(entry, new Vector3(5, 0, 0), 1);
    const turn = motion.turnTo(other, 1, 1);
    objects.remove('body');
    expect(await walk).toBe('removed');
    motion.dispose();
    expect(await turn).toBe('disposed');
  });
});
