// The body sensors of a Three scene: `position` (where the caller is and faces) and `nearby` (the
// registered objects whose bounding volumes come within a radius). They read and change nothing,
// so in event mode they cost no tick.

import { Vector3 } from 'three';
import { defineTool } from '../../runtime/tool.js';
import { type PerceptionPort, survey as shared } from '../shared/perception.js';
import { NO_INPUT, objectOf, POINT_3D_SCHEMA } from '../shared/schemas.js';
import { bearing, degrees, gap, headingOf, point, round, type Point, type Volume } from './geometry.js';
import type { Registered } from './objects.js';
import { caller, count, positive, SEEN_SCHEMA, withOptions, type SceneBinding, type Seen, type ThreeToolOptions } from './threeTool.js';

export type PositionOutput = { position: Point; heading: number; moving: boolean; turning: boolean };

/**
 * `position {}` — where the caller stands (world x, y, z), the heading it faces in degrees (0 faces
 * +z, 90 faces +x), and whether a move or turn is under way. Requires sensor `proprioception`.
 * Limit: 120 calls/min — two a second; a body knows where it is without asking every frame.
 */
export function positionTool(binding: SceneBinding, options?: ThreeToolOptions) {
  return withOptions(
    defineTool({
      id: 'position',
      class: 'sensor',
      description:
        'Where you are (world x, y, z; y is up) and the heading you face in degrees (0 faces +z, 90 faces +x), and whether you are moving or turning.',
      input_schema: NO_INPUT,
      output_schema: objectOf({ position: POINT_3D_SCHEMA, heading: { type: 'number' }, moving: { type: 'boolean' }, turning: { type: 'boolean' } }),
      limits: { calls_per_minute: 120 },
      requires_capability: 'proprioception',
      strict_input: true,
      handler: (_input, context): PositionOutput => {
        const me = caller(binding, context);
        return {
          position: point(me.object.getWorldPosition(new Vector3())),
          heading: degrees(headingOf(me.object)),
          moving: binding.motion.isMoving(me),
          turning: binding.motion.isTurning(me),
        };
      },
    }),
    options,
  );
}

export interface NearbyOptions extends ThreeToolOptions {
  /** Radius when the agent gives none. Default 5 scene units. */
  radius?: number;
  /** The largest radius an agent may ask for. Default 20. */
  maxRadius?: number;
  /** Most objects in one answer (nearest first). Default 10. */
  maxResults?: number;
}

export type NearbyOutput = { radius: number; objects: Seen[]; more: number };

/**
 * `nearby { radius?, kind? }` — the registered objects whose bounding volumes come within `radius`
 * of the caller's, nearest first: id, kind, the gap between the two volumes (0 when touching) and
 * the bearing to turn to face it. Requires sensor `proximity`. Limit: 120 calls/min.
 */
export function nearbyTool(binding: SceneBinding, options: NearbyOptions = {}) {
  const where = 'nearbyTool';
  const maxRadius = positive(where, 'maxRadius', options.maxRadius, 20);
  const radius = Math.min(positive(where, 'radius', options.radius, 5), maxRadius);
  const maxResults = count(where, 'maxResults', options.maxResults, 10);
  return withOptions(
    defineTool({
      id: 'nearby',
      class: 'sensor',
      description: `The objects within a radius of you (default ${radius}, at most ${maxRadius} units), nearest first: id, kind, distance between your outlines (0 = touching) and bearing (degrees to turn to face it; heading + bearing faces it).`,
      input_schema: objectOf(
        {
          radius: { type: 'number', exclusiveMinimum: 0, maximum: maxRadius, description: `How far to feel around, in scene units (default ${radius}).` },
          kind: { type: 'string', minLength: 1, maxLength: 32, description: 'Only objects of this kind, e.g. "villager".' },
        },
        [],
      ),
      output_schema: objectOf({ radius: { type: 'number' }, objects: { type: 'array', items: SEEN_SCHEMA }, more: { type: 'integer', minimum: 0 } }),
      limits: { calls_per_minute: 120 },
      requires_capability: 'proximity',
      strict_input: true,
      handler: (input, context): NearbyOutput => {
        const me = caller(binding, context);
        const within = input.radius ?? radius;
        const mine = binding.objects.volume(me);
        return {
          radius: within,
          ...survey(binding, me, input.kind, maxResults, (volume) => {
            const distance = gap(mine, volume);
            return distance <= within ? distance : undefined;
          }),
        };
      },
    }),
    options,
  );
}

/** The scene's registered objects as perception reads them: the gap between their bounding volumes. */
export function perceptionOf(binding: SceneBinding): PerceptionPort<Registered> {
  return {
    bodies: () => binding.objects.entries(),
    idOf: (entry) => entry.id,
    kindOf: (entry) => entry.kind,
    distancesFrom(from) {
      const mine = binding.objects.volume(from);
      return (entry) => gap(mine, binding.objects.volume(entry));
    },
  };
}

/**
 * The other registered objects (of `kind`, if given) that `test` admits, nearest first, at most
 * `max` of them and how many more: `test` gives an object's distance, or undefined to leave it out.
 * The shared survey (adapters/shared), each found object reported with the bearing to face it.
 */
export function survey(
  binding: SceneBinding,
  me: Registered,
  kind: string | undefined,
  max: number,
  test: (volume: Volume) => number | undefined,
): { objects: Seen[]; more: number } {
  const heading = headingOf(me.object);
  const from = me.object.getWorldPosition(new Vector3());
  // Each object is measured once: the centres of those admitted are kept for their bearings.
  const centres = new Map<Registered, Vector3>();
  const { found, more } = shared(perceptionOf(binding), me, max, kind, (entry) => {
    const volume = binding.objects.volume(entry);
    const distance = test(volume);
    if (distance === undefined) return undefined;
    centres.set(entry, volume.center);
    return round(distance);
  });
  const objects = found.map(({ body, distance }) => ({ id: body.id, kind: body.kind, distance, bearing: bearing(heading, from, centres.get(body)!) }));
  return { objects, more };
}
