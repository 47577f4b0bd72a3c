// What a character can perceive: who is within a radius, and whether a straight line to them
// crosses a registered obstacle. Plain geometry on the registry, so it costs no physics query and
// behaves the same in Phaser 3 and 4.

import { boxOf, positionOf, type Box, type Entity, type EntityRegistry } from './entities.js';

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

export interface SightLine {
  visible: boolean;
  distance: number;
  /** The first obstacle on the line, when it is blocked. */
  blockedBy?: string;
}

/**
 * Characters and objects within `radius` of `from` (excluding `from` itself), nearest first, at most
 * `limit` of them, only of `kind` when given. Obstacles are not listed: they are scenery, known through `visible`.
 */
export function nearby(registry: EntityRegistry, from: Entity, radius: number, limit: number, kind?: string): Seen[] {
  if (limit < 1) return [];
  const origin = positionOf(from);
  const reach = radius * radius;
  // Candidates by squared distance, without copies: every call walks every entity. Only the `limit`
  // nearest are kept, in order (ties by id), so a crowd costs no sort.
  const near: Array<{ entity: Entity; d2: number }> = [];
  for (const entity of registry.all()) {
    if (entity === from || entity.role === 'obstacle' || (kind !== undefined && entity.kind !== kind) || !isLive(entity)) continue;
    const object = entity.object;
    const dx = (object === undefined ? positionOf(entity).x : object.x) - origin.x;
    const dy = (object === undefined ? positionOf(entity).y : object.y) - origin.y;
    const d2 = dx * dx + dy * dy;
    if (d2 > reach) continue;
    if (near.length === limit) {
      if (!nearer(d2, entity, near[limit - 1]!)) continue;
      near.pop();
    }
    const candidate = { entity, d2 };
    let at = near.length;
    near.push(candidate);
    for (; at > 0 && nearer(d2, entity, near[at - 1]!); at--) near[at] = near[at - 1]!;
    near[at] = candidate;
  }
  // Sight only for what is returned, against the obstacles' boxes read once: the costly part.
  const blockers = near.length > 0 ? obstacles(registry) : [];
  return near.map(({ entity, d2 }) => {
    const at = positionOf(entity);
    const visible = sightThrough(blockers, origin, at, [from.id, entity.id]).visible;
    return { id: entity.id, kind: entity.kind, role: entity.role as Seen['role'], x: round(at.x), y: round(at.y), distance: round(Math.sqrt(d2)), visible };
  });
}

/** Whether a candidate at squared distance `d2` goes before `other`: nearer, or as near with a smaller id. */
function nearer(d2: number, entity: Entity, other: { entity: Entity; d2: number }): boolean {
  return d2 < other.d2 || (d2 === other.d2 && entity.id < other.entity.id);
}

/** Whether the segment a→b crosses no obstacle (other than those in `ignore`). */
export function lineOfSight(registry: EntityRegistry, a: { x: number; y: number }, b: { x: number; y: number }, ignore: readonly string[] = []): SightLine {
  return sightThrough(obstacles(registry), a, b, ignore);
}

interface Blocker {
  id: string;
  box: Box;
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

function sightThrough(blockers: readonly Blocker[], a: { x: number; y: number }, b: { x: number; y: number }, ignore: readonly string[]): SightLine {
  const distance = round(Math.sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)));
  let nearest: { id: string; t: number } | undefined;
  for (const { id, box } of blockers) {
    if (ignore.includes(id)) continue;
    const t = segmentEntersBox(a, b, box);
    if (t !== undefined && (nearest === undefined || t < nearest.t)) nearest = { id, t };
  }
  return nearest === undefined ? { visible: true, distance } : { visible: false, distance, blockedBy: nearest.id };
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

/**
 * Where along a→b (0..1) the segment first touches the box, or undefined when it misses
 * (Liang–Barsky clipping). A segment that starts inside the box touches it at 0.
 */
export function segmentEntersBox(a: { x: number; y: number }, b: { x: number; y: number }, box: Box): number | undefined {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  // The four edges as (p, q) pairs, clipped in turn; no array, as sensors run this per object.
  const clip = { enter: 0, exit: 1 };
  if (!clipEdge(-dx, a.x - box.x, clip)) return undefined;
  if (!clipEdge(dx, box.x + box.width - a.x, clip)) return undefined;
  if (!clipEdge(-dy, a.y - box.y, clip)) return undefined;
  if (!clipEdge(dy, box.y + box.height - a.y, clip)) return undefined;
  return clip.enter;
}

/** Narrows [enter, exit] by one edge; false when the segment misses the box. */
function clipEdge(p: number, q: number, clip: { enter: number; exit: number }): boolean {
  if (p === 0) return q >= 0; // parallel to this edge: inside it or not at all
  const t = q / p;
  if (p < 0) clip.enter = Math.max(clip.enter, t);
  else clip.exit = Math.min(clip.exit, t);
  return clip.enter <= clip.exit;
}

/** A destroyed game object has lost its scene; it is no longer there to be seen. */
function isLive(entity: Entity): boolean {
  return entity.object === undefined || (entity.object as { scene?: unknown }).scene != null;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
