// What a character perceives on a PixiJS stage: the shared perception (adapters/shared) over the
// binding's bodies, centre to centre on the plane, with sight past the obstacles' rectangles and a
// view cone along the way the character last walked.

import { type PerceptionPort, survey, within } from '../shared/perception.js';
import { type Blocker, inCone, round, type SightLine, sightPast } from '../shared/plane.js';
import { type BodyRegistry, boxOf, type PixiBody, positionOf } from './bodies.js';

/** One body as the sensors report it. */
export interface Seen {
  id: string;
  kind: string;
  role: 'character' | 'object';
  x: number;
  y: number;
  distance: number;
  /** No obstacle lies on the straight line between the two. */
  visible: boolean;
}

/** The stage's characters and objects as perception reads them (obstacles are scenery: they only block). */
export function perceptionOf(bodies: BodyRegistry): PerceptionPort<PixiBody> {
  return {
    *bodies() {
      for (const body of bodies.all()) if (body.role !== 'obstacle') yield body;
    },
    idOf: (body) => body.id,
    kindOf: (body) => body.kind,
    distancesFrom(from) {
      const origin = positionOf(from);
      return (body) => {
        const at = positionOf(body);
        const dx = at.x - origin.x;
        const dy = at.y - origin.y;
        return Math.sqrt(dx * dx + dy * dy);
      };
    },
  };
}

/** The characters and objects within `radius` of `me`, nearest first, at most `limit`, each with whether it is in sight. */
export function nearby(bodies: BodyRegistry, me: PixiBody, radius: number, limit: number, kind?: string): { objects: Seen[]; more: number } {
  const { found, more } = within(perceptionOf(bodies), me, radius, limit, kind);
  return { objects: seen(bodies, me, found), more };
}

/** The characters and objects in `me`'s view cone (`fov` degrees along its facing, `range` deep), nearest first. */
export function inView(bodies: BodyRegistry, me: PixiBody, fov: number, range: number, limit: number, kind?: string): { objects: Seen[]; more: number } {
  const eye = positionOf(me);
  const distanceTo = perceptionOf(bodies).distancesFrom(me);
  const { found, more } = survey(perceptionOf(bodies), me, limit, kind, (body) =>
    inCone(eye, me.facing, fov, range, positionOf(body)) ? distanceTo(body) : undefined,
  );
  return { objects: seen(bodies, me, found), more };
}

/** Whether the straight line from `me` to `other` crosses an obstacle, and the first that does. */
export function lineOfSight(bodies: BodyRegistry, me: PixiBody, other: PixiBody): SightLine {
  return sightPast(obstacles(bodies), positionOf(me), positionOf(other), [me.id, other.id]);
}

/** The characters within `radius` of a point (they hear what happens there), and the `involved` characters wherever they are. */
export function audience(bodies: BodyRegistry, at: { x: number; y: number }, radius: number, involved: readonly string[] = []): string[] {
  const ids: string[] = [];
  for (const body of bodies.all()) {
    if (body.role !== 'character') continue;
    const p = positionOf(body);
    if ((p.x - at.x) ** 2 + (p.y - at.y) ** 2 <= radius * radius || involved.includes(body.id)) ids.push(body.id);
  }
  return ids;
}

/** The obstacles, each with the rectangle it covers now. */
export function obstacles(bodies: BodyRegistry): Blocker[] {
  const out: Blocker[] = [];
  for (const body of bodies.all()) if (body.role === 'obstacle') out.push({ id: body.id, box: boxOf(body) });
  return out;
}

/** What was found, as agents read it: sight only for these, against the obstacles read once. */
function seen(bodies: BodyRegistry, me: PixiBody, found: ReadonlyArray<{ body: PixiBody; distance: number }>): Seen[] {
  const blockers = found.length > 0 ? obstacles(bodies) : [];
  const origin = positionOf(me);
  return found.map(({ body, distance }) => {
    const at = positionOf(body);
    const visible = sightPast(blockers, origin, at, [me.id, body.id]).visible;
    return { id: body.id, kind: body.kind, role: body.role as Seen['role'], x: round(at.x), y: round(at.y), distance: round(distance), visible };
  });
}
