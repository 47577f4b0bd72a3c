// Geometry on a 2D world's plane, as the 2D adapters (Phaser, PixiJS) perceive it: whether a straight
// line crosses a rectangle, what the first rectangle on it is, and whether a point lies in a view cone.
// Plain numbers, no engine: it costs no physics query and behaves the same in every engine version.

/** A point on the plane. */
export interface Point2 {
  x: number;
  y: number;
}

/** An axis-aligned rectangle: its top-left corner (the smaller x and y) and its size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What stands in the way of sight: an id and the rectangle it covers. */
export interface Blocker {
  id: string;
  box: Box;
}

/** Whether the straight line between two points is clear, how long it is, and the first blocker on it when it is not. */
export interface SightLine {
  visible: boolean;
  distance: number;
  /** The first blocker on the line (nearest the start), when it is blocked. */
  blockedBy?: string;
}

/** The first of `blockers` (other than those in `ignore`) the segment a→b enters, or a clear line. Distances rounded to 0.1. */
export function sightPast(blockers: readonly Blocker[], a: Point2, b: Point2, ignore: readonly string[] = []): SightLine {
  const distance = round(Math.hypot(b.x - a.x, b.y - a.y));
  let nearest: { id: string; t: number } | undefined;
  for (const { id, box } of blockers) {
    if (ignore.includes(id)) continue;
    const t = segmentEntersBox(a, b, box);
    if (t !== undefined && (nearest === undefined || t < nearest.t)) nearest = { id, t };
  }
  return nearest === undefined ? { visible: true, distance } : { visible: false, distance, blockedBy: nearest.id };
}

/**
 * Where along a→b (0..1) the segment first touches the box, or undefined when it misses
 * (Liang–Barsky clipping). A segment that starts inside the box touches it at 0.
 */
export function segmentEntersBox(a: Point2, b: Point2, box: Box): number | undefined {
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

/**
 * Whether `to` lies in the view cone at `from`: within `range`, and within half of `fov` (degrees)
 * of `facing` (radians, as Math.atan2(dy, dx) gives it). A point on top of the eye is in view.
 */
export function inCone(from: Point2, facing: number, fov: number, range: number, to: Point2): boolean {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const d2 = dx * dx + dy * dy;
  if (d2 > range * range) return false;
  if (d2 === 0) return true;
  return Math.abs(angleBetween(facing, Math.atan2(dy, dx))) <= (fov * Math.PI) / 360;
}

/** The signed angle (radians, in (-π, π]) to turn from heading `from` to heading `to`. */
export function angleBetween(from: number, to: number): number {
  const turn = ((((to - from + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) - Math.PI;
  return turn === -Math.PI ? Math.PI : turn;
}

/** Positions and distances as agents read them on a pixel plane: to a tenth. */
export function round(n: number): number {
  return Math.round(n * 10) / 10;
}
