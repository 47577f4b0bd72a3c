// The sensors of a PixiJS stage: `position` (where the caller is, faces and walks to), `nearby` (who
// and what is within a radius, and which are in sight), `can_see` (line of sight to one of them) and
// `in_view` (what lies in the view cone along the way it faces). They read and change nothing.

import { defineTool } from '../../runtime/tool.js';
import { NO_INPUT, objectOf, POINT_2D_SCHEMA } from '../shared/schemas.js';
import { round } from '../shared/plane.js';
import { positionOf } from './bodies.js';
import { inView, lineOfSight, nearby, type Seen } from './perception.js';
import { caller, degrees, ID_INPUT, MAX_RESULTS, type PixiStage, type PixiToolOptions, SEEN_SCHEMA, target, withOptions } from './pixiTool.js';

export type PositionOutput = { id: string; x: number; y: number; facing: number; moving: boolean; target?: { x: number; y: number }; saying?: string };
export type NearbyOutput = { radius: number; objects: Seen[]; more: number };
export type CanSeeOutput = { target: string; visible: boolean; distance: number; blocked_by?: string };
export type InViewOutput = { fov: number; range: number; objects: Seen[]; more: number };

const KIND_INPUT = { type: 'string', minLength: 1, maxLength: 32, description: 'Only things of this kind, e.g. "apple".' } as const;
const LIMIT_INPUT = { type: 'integer', minimum: 1, maximum: MAX_RESULTS, description: `At most this many, nearest first (default ${MAX_RESULTS}).` } as const;
const FOUND_OUTPUT = { objects: { type: 'array', items: SEEN_SCHEMA }, more: { type: 'integer', minimum: 0 } } as const;

/**
 * `position {}` — the caller's x and y (px, y down), the way it faces (degrees: 0 right, 90 down),
 * whether it walks and where to, and what it is saying. Requires sensor `sight`. Limit: 120 calls/min.
 */
export function positionTool(stage: PixiStage, options?: PixiToolOptions) {
  return withOptions(
    defineTool({
      id: 'position',
      class: 'sensor',
      description:
        'Where you are (x, y in pixels; y grows downward), the way you face (degrees: 0 right, 90 down), whether you are walking and where to, and what you are saying.',
      input_schema: NO_INPUT,
      output_schema: objectOf(
        {
          id: { type: 'string' },
          x: { type: 'number' },
          y: { type: 'number' },
          facing: { type: 'number' },
          moving: { type: 'boolean' },
          target: POINT_2D_SCHEMA,
          saying: { type: 'string' },
        },
        ['id', 'x', 'y', 'facing', 'moving'],
      ),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (_input, context): PositionOutput => {
        const me = caller(stage, context);
        const at = positionOf(me);
        const out: PositionOutput = { id: me.id, x: round(at.x), y: round(at.y), facing: degrees(me.facing), moving: false };
        const walk = stage.walks.get(me.id);
        if (walk !== undefined) {
          out.moving = true;
          out.target = { x: walk.to.x, y: walk.to.y };
        }
        const line = stage.saying(me.id);
        if (line !== undefined) out.saying = line;
        return out;
      },
    }),
    options,
  );
}

/**
 * `nearby { radius?, limit?, kind? }` — characters and objects within `radius` px (default and most:
 * the perception radius), nearest first, with whether each is in sight. Requires sensor `sight`.
 * Limit: 60 calls/min.
 */
export function nearbyTool(stage: PixiStage, options?: PixiToolOptions) {
  const most = stage.perceptionRadius;
  return withOptions(
    defineTool({
      id: 'nearby',
      class: 'sensor',
      description: `Who and what is around you: characters and objects within a radius (default and at most ${most} px), nearest first, with ids for other tools, and whether each is in sight.`,
      input_schema: objectOf(
        { radius: { type: 'number', exclusiveMinimum: 0, maximum: most, description: 'How far to look, px.' }, limit: LIMIT_INPUT, kind: KIND_INPUT },
        [],
      ),
      output_schema: objectOf({ radius: { type: 'number' }, ...FOUND_OUTPUT }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'sight',
      strict_input: true,
      handler: ({ radius, limit, kind }, context): NearbyOutput => {
        const r = radius ?? most;
        return { radius: r, ...nearby(stage.bodies, caller(stage, context), r, limit ?? MAX_RESULTS, kind) };
      },
    }),
    options,
  );
}

/**
 * `can_see { target }` — whether a straight line from the caller to a character or object crosses
 * an obstacle, the distance, and the first obstacle in the way. Requires sensor `sight`. Limit: 120 calls/min.
 */
export function canSeeTool(stage: PixiStage, options?: PixiToolOptions) {
  return withOptions(
    defineTool({
      id: 'can_see',
      class: 'sensor',
      description: 'Whether you have a clear line of sight to a character or object (by the id `nearby` gives), how far it is, and what blocks the view.',
      input_schema: objectOf({ target: { ...ID_INPUT, description: 'The id of a character or object.' } }),
      output_schema: objectOf({ target: { type: 'string' }, visible: { type: 'boolean' }, distance: { type: 'number' }, blocked_by: { type: 'string' } }, [
        'target',
        'visible',
        'distance',
      ]),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (input, context): CanSeeOutput => {
        const me = caller(stage, context);
        const line = lineOfSight(stage.bodies, me, target(stage, input.target, me));
        const out: CanSeeOutput = { target: input.target, visible: line.visible, distance: line.distance };
        if (line.blockedBy !== undefined) out.blocked_by = line.blockedBy;
        return out;
      },
    }),
    options,
  );
}

/**
 * `in_view { limit?, kind? }` — the characters and objects inside the caller's view cone (the stage's
 * field of view, along the way it last walked, as deep as the perception radius), nearest first.
 * Obstacles do not hide things here: `visible` says which are in sight. Requires sensor `sight`. Limit: 60 calls/min.
 */
export function inViewTool(stage: PixiStage, options?: PixiToolOptions) {
  const fov = stage.fieldOfView;
  const range = stage.perceptionRadius;
  return withOptions(
    defineTool({
      id: 'in_view',
      class: 'sensor',
      description: `What lies ahead of you: characters and objects in a ${fov}° view along the way you face, up to ${range} px away, nearest first, and whether each is in sight.`,
      input_schema: objectOf({ limit: LIMIT_INPUT, kind: KIND_INPUT }, []),
      output_schema: objectOf({ fov: { type: 'number' }, range: { type: 'number' }, ...FOUND_OUTPUT }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'sight',
      strict_input: true,
      handler: ({ limit, kind }, context): InViewOutput => ({
        fov,
        range,
        ...inView(stage.bodies, caller(stage, context), fov, range, limit ?? MAX_RESULTS, kind),
      }),
    }),
    options,
  );
}
