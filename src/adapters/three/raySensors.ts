// The raycasting sensors: `look_ahead` (the first thing straight ahead) and `line_of_sight` (can I
// see that object, or what stands in between). Rays start at the caller's eyes and test the
// binding's raycast targets — registered objects and unregistered scenery alike, meshes only.

import { Raycaster, Vector3, type Intersection, type Object3D } from 'three';
import { defineTool } from '../../runtime/tool.js';
import { objectOf, POINT_3D_SCHEMA } from '../shared/schemas.js';
import { bearing, forwardOf, headingOf, point, round, type Point } from './geometry.js';
import type { Registered } from './objects.js';
import { caller, eyeOf, idInput, positive, target, withOptions, type SceneBinding, type ThreeToolOptions } from './threeTool.js';

/** Something a ray met: a registered object (with its id) or unregistered scenery (by name). */
export type RayHit = { id?: string; kind: string; name: string; distance: number; point: Point };

const HIT_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' }, distance: { type: 'number' }, point: POINT_3D_SCHEMA },
  required: ['kind', 'name', 'distance', 'point'],
} as const;

export interface RayOptions extends ThreeToolOptions {
  /** How far the eyes reach when the agent gives no range (look_ahead) or at all (line_of_sight). Default 20. */
  range?: number;
  /** The longest range an agent may ask look_ahead for. Default 50. */
  maxRange?: number;
}

export type LookAheadOutput = { range: number; clear: boolean; hit?: RayHit };

/**
 * `look_ahead { range? }` — casts a ray from the caller's eyes along its heading and reports the
 * first mesh it meets within range (a registered object by id, or scenery by name), or `clear`.
 * Requires sensor `sight`. Limit: 120 calls/min.
 */
export function lookAheadTool(binding: SceneBinding, options: RayOptions = {}) {
  const maxRange = positive('lookAheadTool', 'maxRange', options.maxRange, 50);
  const range = Math.min(positive('lookAheadTool', 'range', options.range, 20), maxRange);
  return withOptions(
    defineTool({
      id: 'look_ahead',
      class: 'sensor',
      description: `What is straight ahead of you: the first thing in the direction you face, within a range (default ${range}, at most ${maxRange} units), or clear.`,
      input_schema: objectOf(
        { range: { type: 'number', exclusiveMinimum: 0, maximum: maxRange, description: `How far to look, in scene units (default ${range}).` } },
        [],
      ),
      output_schema: objectOf({ range: { type: 'number' }, clear: { type: 'boolean' }, hit: HIT_SCHEMA }, ['range', 'clear']),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (input, context): LookAheadOutput => {
        const me = caller(binding, context);
        const reach = input.range ?? range;
        const eye = eyeOf(binding, me, new Vector3());
        const hits = cast(binding, eye, forwardOf(headingOf(me.object)), reach, me);
        const first = hits[0];
        return first === undefined ? { range: reach, clear: true } : { range: reach, clear: false, hit: describeHit(binding, first) };
      },
    }),
    options,
  );
}

export type LineOfSightOutput = { target: string; visible: boolean; distance: number; bearing: number; blocked_by?: RayHit; too_far?: boolean };

/**
 * `line_of_sight { target }` — whether a ray from the caller's eyes reaches the target's centre
 * before anything else, within `range`; if not, what blocks it (or `too_far`). Also the distance
 * and bearing to the target. Requires sensor `sight`. Limit: 120 calls/min.
 */
export function lineOfSightTool(binding: SceneBinding, options: RayOptions = {}) {
  const range = positive('lineOfSightTool', 'range', options.range, 20);
  return withOptions(
    defineTool({
      id: 'line_of_sight',
      class: 'sensor',
      description: `Whether you can see an object (by id) from where you stand — up to ${range} units away — or what blocks the view; also its distance and bearing (degrees to turn to face it).`,
      input_schema: objectOf({ target: idInput('The id of the object to look for, as nearby or in_view reported it.') }),
      output_schema: objectOf(
        {
          target: { type: 'string' },
          visible: { type: 'boolean' },
          distance: { type: 'number' },
          bearing: { type: 'number' },
          blocked_by: HIT_SCHEMA,
          too_far: { type: 'boolean' },
        },
        ['target', 'visible', 'distance', 'bearing'],
      ),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (input, context): LineOfSightOutput => {
        const me = caller(binding, context);
        const other = target(binding, input.target, me);
        const eye = eyeOf(binding, me, new Vector3());
        const centre = binding.objects.volume(other).center;
        const distance = eye.distanceTo(centre);
        const out: LineOfSightOutput = {
          target: other.id,
          visible: false,
          distance: round(distance),
          bearing: bearing(headingOf(me.object), me.object.getWorldPosition(new Vector3()), centre),
        };
        if (distance > range) return { ...out, too_far: true };
        // Inside the target already (or at its centre): nothing can stand in between.
        if (distance < 1e-6) return { ...out, visible: true };
        const hits = cast(binding, eye, centre.clone().sub(eye).divideScalar(distance), distance, me);
        // The view is blocked by what the ray meets before it meets the target itself (or its centre).
        const reached = hits.find((hit) => binding.objects.owner(hit.object) === other)?.distance ?? distance;
        const blocker = hits.find((hit) => hit.distance < reached && binding.objects.owner(hit.object) !== other);
        return blocker === undefined ? { ...out, visible: true } : { ...out, blocked_by: describeHit(binding, blocker) };
      },
    }),
    options,
  );
}

/** Mesh hits along a ray, nearest first, leaving out the caller's own body and hidden meshes. */
export function cast(binding: SceneBinding, origin: Vector3, direction: Vector3, far: number, me: Registered): Intersection[] {
  const raycaster = new Raycaster(origin, direction, 0, far);
  const hits = raycaster.intersectObjects(binding.raycastTargets as Object3D[], true);
  return hits.filter((hit) => (hit.object as { isMesh?: boolean }).isMesh === true && shown(hit.object) && binding.objects.owner(hit.object) !== me);
}

function shown(object: Object3D): boolean {
  for (let at: Object3D | null = object; at !== null; at = at.parent) if (!at.visible) return false;
  return true;
}

function describeHit(binding: SceneBinding, hit: Intersection): RayHit {
  const owner = binding.objects.owner(hit.object);
  const base = { distance: round(hit.distance), point: point(hit.point) };
  if (owner !== undefined) return { id: owner.id, kind: owner.kind, name: owner.object.name || owner.id, ...base };
  return { kind: 'scenery', name: hit.object.name || 'something', ...base };
}
