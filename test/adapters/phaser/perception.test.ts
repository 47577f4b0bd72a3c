// Line-of-sight geometry and the perception queries, on a registry of plain stand-ins (no Phaser).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntityRegistry, type Positioned } from '../../../src/adapters/phaser/entities.js';
import { audience, lineOfSight, nearby, segmentEntersBox } from '../../../src/adapters/phaser/perception.js';

/** Just what the registry reads of a game object: a position, and events to hook. */
function thing(x: number, y: number): Positioned {
  return { x, y, scene: {}, once: () => {}, off: () => {}, on: () => {} } as unknown as Positioned;
}

describe('segmentEntersBox', () => {
  const box = { x: 10, y: 10, width: 10, height: 10 };
  it('finds where a segment first touches a box, and undefined when it misses', () => {
    expect(segmentEntersBox({ x: 0, y: 15 }, { x: 30, y: 15 }, box)).toBeCloseTo(1 / 3);
    expect(segmentEntersBox({ x: 0, y: 0 }, { x: 30, y: 0 }, box)).toBeUndefined();
    expect(segmentEntersBox({ x: 0, y: 15 }, { x: 5, y: 15 }, box)).toBeUndefined(); // stops short
    expect(segmentEntersBox({ x: 15, y: 15 }, { x: 40, y: 40 }, box)).toBe(0); // starts inside
    expect(segmentEntersBox({ x: 0, y: 0 }, { x: 30, y: 30 }, box)).toBeCloseTo(1 / 3); // diagonal
    expect(segmentEntersBox({ x: 15, y: 0 }, { x: 15, y: 5 }, box)).toBeUndefined(); // vertical, short
  });
});

describe('perception on the registry', () => {
  function world() {
    const registry = new EntityRegistry(100, () => {});
    const me = registry.addCharacter('me', thing(0, 0));
    registry.addCharacter('friend', thing(30, 0));
    registry.addObject('rock', thing(0, 50), { kind: 'rock' });
    registry.addCharacter('far', thing(500, 0));
    registry.addObstacle({ x: 10, y: -5, width: 5, height: 10 }, { id: 'fence' });
    return { registry, me };
  }

  it('nearby: within the radius, nearest first, obstacles left out, sight per entry', () => {
    const { registry, me } = world();
    expect(nearby(registry, me, 100, 10)).toEqual([
      { id: 'friend', kind: 'character', role: 'character', x: 30, y: 0, distance: 30, visible: false },
      { id: 'rock', kind: 'rock', role: 'object', x: 0, y: 50, distance: 50, visible: true },
    ]);
    expect(nearby(registry, me, 100, 1).map((seen) => seen.id)).toEqual(['friend']);
    expect(nearby(registry, me, 100, 10, 'rock').map((seen) => seen.id)).toEqual(['rock']);
  });

  it('lineOfSight names the nearest obstacle on the line', () => {
    const { registry } = world();
    registry.addObstacle({ x: 20, y: -5, width: 5, height: 10 }, { id: 'wall' });
    expect(lineOfSight(registry, { x: 0, y: 0 }, { x: 30, y: 0 })).toEqual({ visible: false, distance: 30, blockedBy: 'fence' });
    expect(lineOfSight(registry, { x: 0, y: 0 }, { x: 30, y: 0 }, ['fence'])).toEqual({ visible: false, distance: 30, blockedBy: 'wall' });
    expect(lineOfSight(registry, { x: 0, y: 0 }, { x: 0, y: 50 })).toEqual({ visible: true, distance: 50 });
  });

  it('audience: the characters within the radius of a point, and the involved characters anywhere', () => {
    const { registry } = world();
    expect(audience(registry, { x: 0, y: 0 }, 100)).toEqual(['me', 'friend']);
    expect(audience(registry, { x: 0, y: 0 }, Number.POSITIVE_INFINITY)).toEqual(['me', 'friend', 'far']);
    // 'far' is involved though out of range; 'friend' is not added twice; 'rock' is no character.
    expect(audience(registry, { x: 0, y: 0 }, 100, ['far', 'friend', 'rock'])).toEqual(['me', 'friend', 'far']);
  });

  it('the registry refuses bad ids, duplicates, and more than its bound, with CapsuleErrors', () => {
    const registry = new EntityRegistry(2, () => {});
    registry.addObject('a', thing(0, 0));
    expect(() => registry.addObject('a', thing(0, 0))).toThrow(
      expect.objectContaining({
        code: 'AICC_INVALID_OPTION',
        message: 'AiccScenePlugin.addObject: id "a" is already registered; remove it first or pick another id',
      }),
    );
    expect(() => registry.addObject('b c', thing(0, 0))).toThrow(/must be 1–64 letters, digits, _ or -/);
    expect(() => registry.addCharacter('b', thing(0, 0), { speed: 0 })).toThrow(/speed must be a number > 0/);
    registry.addObject('b', thing(0, 0));
    expect(() => registry.addObject('c', thing(0, 0))).toThrow(/2 entities are registered already \(maxEntities\)/);
    expect(() => registry.addObstacle({ x: 0 } as never)).toThrow(/expected a game object or a rectangle/);
    expect(() => registry.addTemplate('Apple', () => thing(0, 0))).toThrow(/lowercase snake_case/);
  });
});

describe('nearby in a crowd', () => {
  it('keeps the `limit` nearest, nearest first and ties by id, as sorting them all would', () => {
    const spot = fc.record({ x: fc.integer({ min: -20, max: 20 }), y: fc.integer({ min: -20, max: 20 }) });
    fc.assert(
      fc.property(fc.array(spot, { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 30 }), (spots, limit, radius) => {
        const registry = new EntityRegistry(100, () => {});
        const me = registry.addCharacter('me', thing(0, 0));
        // Ids whose order is not the order of adding, so ties are really broken by id.
        spots.forEach((at, i) => registry.addObject(`o${(i * 7) % 41}_${i}`, thing(at.x, at.y)));
        const expected = spots
          .map((at, i) => ({ id: `o${(i * 7) % 41}_${i}`, d2: at.x * at.x + at.y * at.y }))
          .filter((c) => c.d2 <= radius * radius)
          .sort((a, b) => a.d2 - b.d2 || (a.id < b.id ? -1 : 1))
          .slice(0, limit)
          .map((c) => c.id);
        expect(nearby(registry, me, radius, limit).map((seen) => seen.id)).toEqual(expected);
      }),
    );
  });

  it('still sees an obstacle added after the others, and not one removed', () => {
    const registry = new EntityRegistry(100, () => {});
    const me = registry.addCharacter('me', thing(0, 0));
    registry.addCharacter('friend', thing(30, 0));
    expect(nearby(registry, me, 100, 5)[0]!.visible).toBe(true);
    registry.addObstacle({ x: 10, y: -5, width: 5, height: 10 }, { id: 'fence' });
    expect(nearby(registry, me, 100, 5)[0]!.visible).toBe(false);
    registry.remove('fence');
    expect(nearby(registry, me, 100, 5)[0]!.visible).toBe(true);
  });
});
