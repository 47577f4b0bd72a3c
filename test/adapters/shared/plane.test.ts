// The 2D plane's geometry: segments past rectangles and view cones (no engine).

import { describe, expect, it } from 'vitest';
import { angleBetween, inCone, segmentEntersBox, sightPast } from '../../../src/adapters/shared/plane.js';

describe('sightPast', () => {
  const near = { id: 'near', box: { x: 10, y: -5, width: 2, height: 10 } };
  const far = { id: 'far', box: { x: 20, y: -5, width: 2, height: 10 } };

  it('names the first blocker on the line, skips the ignored, and measures the line', () => {
    expect(sightPast([far, near], { x: 0, y: 0 }, { x: 30, y: 0 })).toEqual({ visible: false, distance: 30, blockedBy: 'near' });
    expect(sightPast([far, near], { x: 0, y: 0 }, { x: 30, y: 0 }, ['near'])).toEqual({ visible: false, distance: 30, blockedBy: 'far' });
    expect(sightPast([far, near], { x: 0, y: 0 }, { x: 3, y: 4 })).toEqual({ visible: true, distance: 5 });
  });

  it('a segment that starts inside a box touches it at once', () => {
    expect(segmentEntersBox({ x: 11, y: 0 }, { x: 30, y: 0 }, near.box)).toBe(0);
  });
});

describe('inCone', () => {
  it('takes what lies within range and half the field of view of the facing', () => {
    const eye = { x: 0, y: 0 };
    expect(inCone(eye, 0, 90, 10, { x: 5, y: 4 })).toBe(true); // 38.7° off a 45° half-angle
    expect(inCone(eye, 0, 90, 10, { x: 5, y: 6 })).toBe(false); // 50.2°
    expect(inCone(eye, 0, 90, 10, { x: 11, y: 0 })).toBe(false); // beyond range
    expect(inCone(eye, Math.PI, 90, 10, { x: -5, y: -1 })).toBe(true); // facing left, across the ±π seam
    expect(inCone(eye, 0, 90, 10, eye)).toBe(true);
  });

  it('turns the short way round', () => {
    expect(angleBetween(0.1, -0.1)).toBeCloseTo(-0.2);
    expect(angleBetween(Math.PI - 0.1, -Math.PI + 0.1)).toBeCloseTo(0.2);
    expect(angleBetween(0, Math.PI)).toBe(Math.PI);
  });
});
