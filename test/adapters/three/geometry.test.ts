import { Vector3 } from 'three';
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
