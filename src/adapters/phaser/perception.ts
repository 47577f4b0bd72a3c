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
  const origin = positionOf(from);
  const found: Seen[] = [];
  for (const entity of registry.all()) {
    if (entity === from || entity.role === 'obstacle' || (kind !== undefined && entity.kind !== kind) || !isLive(entity)) continue;
    const at = positionOf(entity);
    const distance = Math.hypot(at.x - origin.x, at.y - origin.y);
    if (distance > radius) continue;
    found.push({ id: entity.id, kind: entity.kind, role: entity.role, x: round(at.x), y: round(at.y), distance: round(distance), visible: true });
  }
  found.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
  const kept = found.slice(0, limit);
  // Sight only for what is returned, against the obstacles' boxes read once: the costly part.
  const blockers = obstacles(registry);
  for (const seen of kept) seen.visible = sightThrough(blockers, origin, seen, [from.id, seen.id]).visible;
  return kept;
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
  for (const entity of registry.all()) {
    if (entity.role !== 'obstacle' || !isLive(entity)) continue;
    const box = boxOf(entity);
    if (box !== undefined) out.push({ id: entity.id, box });
  }
  return out;
}

function sightThrough(blockers: readonly Blocker[], a: { x: number; y: number }, b: { x: number; y: number }, ignore: readonly string[]): SightLine {
  const distance = round(Math.hypot(b.x - a.x, b.y - a.y));
  let nearest: { id: string; t: number } | undefined;
  for (const { id, box } of blockers) {
    if (ignore.includes(id)) continue;
    const t = segmentEntersBox(a, b, box);
    if (t !== undefined && (nearest === undefined || t < nearest.t)) nearest = { id, t };
  }
  return nearest === undefined ? { visible: true, distance } : { visible: false, distance, blockedBy: nearest.id };
}

/** Ids of the characters within `radius` of a point (their sessions hear what happens there). */
export function audience(registry: EntityRegistry, at: { x: number; y: number }, radius: number): string[] {
  const ids: string[] = [];
  for (const entity of registry.all()) {
    if (entity.role !== 'character' || !isLive(entity)) continue;
    const p = positionOf(entity);
    if (Math.hypot(p.x - at.x, p.y - at.y) <= radius) ids.push(entity.id);
  }
  return ids;
}

/**
 * Where along a→b (0..1) the segment first touches the box, or undefined when it misses
 * (Liang–Barsky clipping). A segment that starts inside the box touches it at 0.
 */
export function segmentEntersBox(a: { x: number; y: number }, b: { x: number; y: number }, box: Box): number | undefined {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let enter = 0;
  let exit = 1;
  const edges: Array<[number, number]> = [
    [-dx, a.x - box.x],
    [dx, box.x + box.width - a.x],
    [-dy, a.y - box.y],
    [dy, box.y + box.height - a.y],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return undefined; // parallel to this edge and outside it
      continue;
    }
    const t = q / p;
    if (p < 0) enter = Math.max(enter, t);
    else exit = Math.min(exit, t);
    if (enter > exit) return undefined;
  }
  return enter;
}

/** A destroyed game object has lost its scene; it is no longer there to be seen. */
function isLive(entity: Entity): boolean {
  return entity.object === undefined || (entity.object as { scene?: unknown }).scene != null;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
