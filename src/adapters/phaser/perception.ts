// What a character can perceive in a Phaser scene: who is within a radius, and whether a straight
// line to them crosses a registered obstacle — the shared perception (adapters/shared) over the
// entity registry, so it costs no physics query and behaves the same in Phaser 3 and 4.

import { type PerceptionPort, within } from '../shared/perception.js';
import { type Blocker, type Point2, round, type SightLine, sightPast } from '../shared/plane.js';
import { boxOf, type Entity, type EntityRegistry, positionOf } from './entities.js';

export { segmentEntersBox, type SightLine } from '../shared/plane.js';

export interface Seen {
  id: string;
  kind: string;
  role: 'character' | 'object';
  x: number;
  y: number;
  distance: number;
  /** No registered obstacle lies on the straight line between the two. */
  visible: boolean;
}

/**
 * Characters and objects within `radius` of `from` (excluding `from` itself), nearest first, at most
 * `limit` of them, only of `kind` when given. Obstacles are not listed: they are scenery, known through `visible`.
 */
export function nearby(registry: EntityRegistry, from: Entity, radius: number, limit: number, kind?: string): Seen[] {
  const { found } = within(perceptionOf(registry), from, radius, limit, kind);
  // Sight only for what is returned, against the obstacles' boxes read once: the costly part.
  const blockers = found.length > 0 ? obstacles(registry) : [];
  const origin = positionOf(from);
  return found.map(({ body, distance }) => {
    const at = positionOf(body);
    const visible = sightPast(blockers, origin, at, [from.id, body.id]).visible;
    return { id: body.id, kind: body.kind, role: body.role as Seen['role'], x: round(at.x), y: round(at.y), distance: round(distance), visible };
  });
}

/** The scene's characters and objects as perception reads them: centre to centre on the plane. */
export function perceptionOf(registry: EntityRegistry): PerceptionPort<Entity> {
  return {
    *bodies() {
      for (const entity of registry.all()) if (entity.role !== 'obstacle' && isLive(entity)) yield entity;
    },
    idOf: (entity) => entity.id,
    kindOf: (entity) => entity.kind,
    distancesFrom(from) {
      const origin = positionOf(from);
      // Every call walks every entity: read a game object's position in place rather than copy it.
      return (entity) => {
        const object = entity.object;
        const p = object === undefined ? positionOf(entity) : object;
        const dx = p.x - origin.x;
        const dy = p.y - origin.y;
        return Math.sqrt(dx * dx + dy * dy);
      };
    },
  };
}

/** Whether the segment a→b crosses no obstacle (other than those in `ignore`). */
export function lineOfSight(registry: EntityRegistry, a: Point2, b: Point2, ignore: readonly string[] = []): SightLine {
  return sightPast(obstacles(registry), a, b, ignore);
}

/** The obstacles there are now, each with the rectangle it covers. */
function obstacles(registry: EntityRegistry): Blocker[] {
  const out: Blocker[] = [];
  for (const entity of registry.obstacles()) {
    if (!isLive(entity)) continue;
    const box = boxOf(entity);
    if (box !== undefined) out.push({ id: entity.id, box });
  }
  return out;
}

/**
 * Ids of the characters within `radius` of a point (their sessions hear what happens there), and
 * of the `involved` characters wherever they are.
 */
export function audience(registry: EntityRegistry, at: { x: number; y: number }, radius: number, involved: readonly string[] = []): string[] {
  const ids: string[] = [];
  const reach = radius * radius;
  // Every event near anyone walks every entity: read positions in place rather than copy them.
  for (const entity of registry.all()) {
    if (entity.role !== 'character' || !isLive(entity)) continue;
    const object = entity.object;
    const p = object === undefined ? positionOf(entity) : object;
    const dx = p.x - at.x;
    const dy = p.y - at.y;
    if (dx * dx + dy * dy <= reach) ids.push(entity.id);
  }
  for (const id of involved) if (!ids.includes(id) && registry.get(id)?.role === 'character') ids.push(id);
  return ids;
}

/** A destroyed game object has lost its scene; it is no longer there to be seen. */
function isLive(entity: Entity): boolean {
  return entity.object === undefined || (entity.object as { scene?: unknown }).scene != null;
}
