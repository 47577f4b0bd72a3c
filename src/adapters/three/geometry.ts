// The conventions every Three tool shares, in one place: headings, bearings, world volumes and the
// gaps between them, and how numbers are rounded before they reach an agent.
//
// Heading: degrees about the world's up axis (+Y). Heading 0 faces +Z, heading 90 faces +X — the
// direction `object.lookAt` turns an object's local +Z to, so a heading and `rotation.y` agree for
// objects whose parents are not turned.

import { Box3, MathUtils, Sphere, Vector3, type BufferGeometry, type Object3D } from 'three';

/** An object's extent in world space, as measured for `nearby` and collisions. */
export type Volume = { kind: 'box'; box: Box3; center: Vector3; radius: number } | { kind: 'sphere'; sphere: Sphere; center: Vector3; radius: number };

export type BoundsKind = 'box' | 'sphere';

/** The object's world volume as of its world matrices (the binding updates them every frame). */
export function measure(object: Object3D, kind: BoundsKind, radius: number | undefined): Volume {
  if (kind === 'sphere') {
    const center = object.getWorldPosition(new Vector3());
    // No radius given: the sphere around the object's box, so a sphere-bounded mesh needs no tuning.
    const r = radius ?? boxOf(object).getBoundingSphere(new Sphere()).radius;
    return { kind: 'sphere', sphere: new Sphere(center, Number.isFinite(r) ? r : 0), center, radius: Number.isFinite(r) ? r : 0 };
  }
  const box = boxOf(object);
  // An object with no geometry (a bare Group or Object3D) has an empty box: treat it as its origin.
  if (box.isEmpty()) box.setFromCenterAndSize(object.getWorldPosition(new Vector3()), new Vector3());
  const center = box.getCenter(new Vector3());
  return { kind: 'box', box, center, radius: box.getSize(new Vector3()).length() / 2 };
}

/**
 * The world box around an object and its descendants: `Box3.setFromObject` without its per-node
 * `updateWorldMatrix`, which would recompute every matrix the frame's `scene.updateMatrixWorld`
 * just did (half the cost of measuring). Geometry boxes are computed once and cached by three.
 */
function boxOf(object: Object3D): Box3 {
  const box = new Box3();
  const part = new Box3();
  object.traverse((node) => {
    const geometry = (node as { geometry?: BufferGeometry }).geometry;
    if (geometry === undefined) return;
    // InstancedMesh and BatchedMesh keep a box of all their instances on the object itself.
    const own = node as { boundingBox?: Box3 | null; computeBoundingBox?: () => void };
    let local: Box3 | null;
    if (own.boundingBox !== undefined) {
      if (own.boundingBox === null) own.computeBoundingBox?.();
      local = own.boundingBox ?? null;
    } else {
      if (geometry.boundingBox === null) geometry.computeBoundingBox();
      local = geometry.boundingBox;
    }
    if (local !== null) box.union(part.copy(local).applyMatrix4(node.matrixWorld));
  });
  return box;
}

/** Whether two volumes touch or overlap (three's own tests: touching counts). */
export function overlaps(a: Volume, b: Volume): boolean {
  if (a.kind === 'box') return b.kind === 'box' ? a.box.intersectsBox(b.box) : a.box.intersectsSphere(b.sphere);
  return b.kind === 'box' ? b.box.intersectsSphere(a.sphere) : a.sphere.intersectsSphere(b.sphere);
}

/** The empty space between two volumes; 0 when they touch or overlap. */
export function gap(a: Volume, b: Volume): number {
  if (a.kind === 'box' && b.kind === 'box') {
    // Per axis, how far apart the two boxes' extents are (0 where they overlap on that axis).
    const dx = Math.max(0, a.box.min.x - b.box.max.x, b.box.min.x - a.box.max.x);
    const dy = Math.max(0, a.box.min.y - b.box.max.y, b.box.min.y - a.box.max.y);
    const dz = Math.max(0, a.box.min.z - b.box.max.z, b.box.min.z - a.box.max.z);
    return Math.hypot(dx, dy, dz);
  }
  if (a.kind === 'box' && b.kind === 'sphere') return Math.max(0, a.box.distanceToPoint(b.sphere.center) - b.sphere.radius);
  if (a.kind === 'sphere' && b.kind === 'box') return Math.max(0, b.box.distanceToPoint(a.sphere.center) - a.sphere.radius);
  const [s, t] = [(a as { sphere: Sphere }).sphere, (b as { sphere: Sphere }).sphere];
  return Math.max(0, s.center.distanceTo(t.center) - s.radius - t.radius);
}

/** The heading (radians) an object faces: where its local +Z points in the world, about +Y. */
export function headingOf(object: Object3D): number {
  const forward = object.getWorldDirection(new Vector3());
  // Straight up or down: no heading to speak of; keep rotation.y so the answer is stable.
  if (Math.abs(forward.x) < 1e-9 && Math.abs(forward.z) < 1e-9) return object.rotation.y;
  return Math.atan2(forward.x, forward.z);
}

/** The unit direction on the ground for a heading (radians). */
export function forwardOf(heading: number, target = new Vector3()): Vector3 {
  return target.set(Math.sin(heading), 0, Math.cos(heading));
}

/** The heading (radians) from one point to another on the ground; undefined when they coincide. */
export function headingBetween(from: Vector3, to: Vector3): number | undefined {
  const dx = to.x - from.x;
  const dz = to.z - from.z;
  if (Math.abs(dx) < 1e-9 && Math.abs(dz) < 1e-9) return undefined;
  return Math.atan2(dx, dz);
}

/** An angle brought into (-π, π]. */
export function wrapAngle(radians: number): number {
  const wrapped = MathUtils.euclideanModulo(radians + Math.PI, 2 * Math.PI) - Math.PI;
  return wrapped === -Math.PI ? Math.PI : wrapped;
}

/** Degrees in (-180, 180], rounded for an agent. */
export function degrees(radians: number): number {
  return round(MathUtils.radToDeg(wrapAngle(radians)), 1);
}

/** How far to turn from `heading` to face `to` from `from`, in degrees (heading + bearing faces it). */
export function bearing(heading: number, from: Vector3, to: Vector3): number {
  const toward = headingBetween(from, to);
  return toward === undefined ? 0 : degrees(toward - heading);
}

/** Agents read positions and distances to a centimetre; more digits are noise in a prompt. */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  const out = Math.round(value * scale) / scale;
  return Object.is(out, -0) ? 0 : out;
}

export type Point = { x: number; y: number; z: number };

export function point(v: Vector3): Point {
  return { x: round(v.x), y: round(v.y), z: round(v.z) };
}
