// The frustum sensor: `in_view` lists the registered objects inside what the caller sees — its own
// camera's frustum when the game registered one, otherwise a square view cone from its eyes along
// its heading. Outlines are tested, not pixels: something behind a wall is still "in view"; ask
// line_of_sight about it.

import { Frustum, Matrix4, PerspectiveCamera, Vector3, type Camera } from 'three';
import { CapsuleError } from '../../base/errors.js';
import { defineTool } from '../../runtime/tool.js';
import { objectOf } from '../shared/schemas.js';
import { forwardOf, headingOf } from './geometry.js';
import { survey } from './sensors.js';
import { caller, count, eyeOf, positive, SEEN_SCHEMA, withOptions, type SceneBinding, type Seen, type ThreeToolOptions } from './threeTool.js';

export interface InViewOptions extends ThreeToolOptions {
  /** The view cone's field of view, degrees, for objects without a camera. Default 90. */
  fov?: number;
  /** How far the view cone reaches. Default 20 scene units. */
  range?: number;
  /** Most objects in one answer (nearest first). Default 10. */
  maxResults?: number;
}

export type InViewOutput = { objects: Seen[]; more: number; camera: boolean };

/**
 * `in_view { kind? }` — the registered objects inside the caller's view, nearest first (id, kind,
 * distance from the eyes to the object's centre, bearing). Requires sensor `sight`.
 * Limit: 120 calls/min.
 */
export function inViewTool(binding: SceneBinding, options: InViewOptions = {}) {
  const fov = positive('inViewTool', 'fov', options.fov, 90);
  const range = positive('inViewTool', 'range', options.range, 20);
  const maxResults = count('inViewTool', 'maxResults', options.maxResults, 10);
  if (fov >= 180) throw new CapsuleError('AICC_INVALID_OPTION', `inViewTool: fov must be below 180 degrees, got ${fov}`);
  return withOptions(
    defineTool({
      id: 'in_view',
      class: 'sensor',
      description: `The objects you can see ahead (a ${fov}° view, ${range} units deep, unless you have your own camera), nearest first, with distance and bearing (degrees to turn to face it). Walls do not hide things here: use line_of_sight to check.`,
      input_schema: objectOf({ kind: { type: 'string', minLength: 1, maxLength: 32, description: 'Only objects of this kind, e.g. "villager".' } }, []),
      output_schema: objectOf({ objects: { type: 'array', items: SEEN_SCHEMA }, more: { type: 'integer', minimum: 0 }, camera: { type: 'boolean' } }),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (input, context): InViewOutput => {
        const me = caller(binding, context);
        const eye = eyeOf(binding, me, new Vector3());
        const frustum = frustumOf(me.camera ?? viewCone(eye, headingOf(me.object), fov, range));
        const objects = survey(binding, me, input.kind, maxResults, (volume) => {
          const inside = volume.kind === 'box' ? frustum.intersectsBox(volume.box) : frustum.intersectsSphere(volume.sphere);
          return inside ? eye.distanceTo(volume.center) : undefined;
        });
        return { ...objects, camera: me.camera !== undefined };
      },
    }),
    options,
  );
}

/** A camera standing at the eyes, looking along the heading: the default view cone. */
function viewCone(eye: Vector3, heading: number, fov: number, range: number): PerspectiveCamera {
  const camera = new PerspectiveCamera(fov, 1, 0.01, range);
  camera.position.copy(eye);
  camera.lookAt(eye.clone().add(forwardOf(heading)));
  camera.updateMatrixWorld(true);
  return camera;
}

function frustumOf(camera: Camera): Frustum {
  // A character's own camera may sit anywhere in the graph: bring its matrices up to date first.
  camera.updateWorldMatrix(true, false);
  return new Frustum().setFromProjectionMatrix(new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
}
