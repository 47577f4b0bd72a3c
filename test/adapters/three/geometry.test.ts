import { Box3, BoxGeometry, Group, InstancedMesh, Matrix4, Mesh, SphereGeometry, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { bearing, degrees, gap, measure } from '../../../src/adapters/three/geometry.js';
import { cube } from './fixture.js';

describe('geometry', () => {
  it('gap: the empty space between outlines, 0 when touching', () => {
    const a = cube('a', 0, 0);
    const b = cube('b', 3, 0);
    a.updateMatrixWorld();
    b.updateMatrixWorld();
    expect(gap(measure(a, 'box', undefined), measure(b, 'box', undefined))).toBeCloseTo(2);
    expect(gap(measure(a, 'box', undefined), measure(b, 'sphere', 0.5))).toBeCloseTo(2);
    expect(gap(measure(a, 'sphere', 1), measure(b, 'sphere', 1))).toBeCloseTo(1);
    b.position.x = 0.9;
    b.updateMatrixWorld();
    expect(gap(measure(a, 'box', undefined), measure(b, 'box', undefined))).toBe(0);
  });

  it('headings: 0 faces +z, 90 faces +x; bearings are the turn to face a point', () => {
    const origin = new Vector3();
    expect(bearing(0, origin, new Vector3(0, 0, 5))).toBe(0);
    expect(bearing(0, origin, new Vector3(5, 0, 0))).toBe(90);
    expect(bearing(0, origin, new Vector3(-5, 0, 0))).toBe(-90);
    expect(bearing(Math.PI / 2, origin, new Vector3(0, 0, -5))).toBe(90);
    expect(degrees(-Math.PI)).toBe(180);
    expect(degrees(3 * Math.PI)).toBe(180);
  });
});

describe('measure', () => {
  it("gives the box three's Box3.setFromObject gives, for nested, turned and scaled meshes and instances", () => {
    const group = new Group();
    group.position.set(2, 1, -3);
    group.rotation.y = 0.7;
    const arm = new Mesh(new BoxGeometry(1, 2, 3));
    arm.position.set(1, 0, 0);
    arm.rotation.set(0.3, 0.2, 0.1);
    arm.scale.set(2, 1, 0.5);
    const ball = new Mesh(new SphereGeometry(0.5));
    ball.position.set(0, 3, 1);
    arm.add(ball);
    const trees = new InstancedMesh(new BoxGeometry(1, 1, 1), undefined, 2);
    trees.setMatrixAt(0, new Matrix4().makeTranslation(5, 0, 0));
    trees.setMatrixAt(1, new Matrix4().makeTranslation(-4, 0, 2));
    group.add(arm, trees);
    group.updateMatrixWorld(true);
    const volume = measure(group, 'box', undefined);
    if (volume.kind !== 'box') throw new Error('expected a box');
    const expected = new Box3().setFromObject(group);
    expect(volume.box.min.toArray().map((n) => +n.toFixed(9))).toEqual(expected.min.toArray().map((n) => +n.toFixed(9)));
    expect(volume.box.max.toArray().map((n) => +n.toFixed(9))).toEqual(expected.max.toArray().map((n) => +n.toFixed(9)));
  });

  it('a bare Object3D measures as its origin', () => {
    const empty = new Group();
    empty.position.set(1, 2, 3);
    empty.updateMatrixWorld();
    expect(measure(empty, 'box', undefined)).toMatchObject({ kind: 'box', radius: 0, center: { x: 1, y: 2, z: 3 } });
  });
});
