// The sensors of a Phaser scene: `position` (where the caller is and where it is going), `nearby`
// (who and what is within a radius, and which of them are in sight) and `can_see` (line of sight to
// one of them). They read the scene and change nothing.

import { ToolError } from '../../base/errors.js';
import { defineTool } from '../../runtime/tool.js';
import { NO_INPUT, objectOf, POINT_2D_SCHEMA } from '../shared/schemas.js';
import { positionOf } from './entities.js';
import { lineOfSight, nearby, type Seen } from './perception.js';
import { caller, round, withOptions, type PhaserToolOptions, type SceneWorld } from './phaserTool.js';

export type PositionOutput = { id: string; x: number; y: number; moving: boolean; target?: { x: number; y: number }; saying?: string };
export type NearbyOutput = { radius: number; objects: Seen[] };
export type CanSeeOutput = { target: string; visible: boolean; distance: number; blocked_by?: string };

/** Most objects `nearby` lists in one answer. */
export const MAX_NEARBY = 32;

/**
 * `position {}` — the caller's x and y, whether it is walking and to where, and what it is saying.
 * Requires sensor `sight`. Limit: 120 calls/min — twice a second is plenty to follow a walk.
 */
export function positionTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'position',
      class: 'sensor',
      description: 'Where you are (x, y in pixels; y grows downward), whether you are walking and where to, and what you are saying.',
      input_schema: NO_INPUT,
      output_schema: objectOf(
        {
          id: { type: 'string' },
          x: { type: 'number' },
          y: { type: 'number' },
          moving: { type: 'boolean' },
          target: POINT_2D_SCHEMA,
          saying: { type: 'string' },
        },
        ['id', 'x', 'y', 'moving'],
      ),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (_input, context): PositionOutput => {
        const me = caller(world, context);
        const at = positionOf(me);
        const out: PositionOutput = { id: me.id, x: round(at.x), y: round(at.y), moving: false };
        const walk = world.walks.get(me.id);
        if (walk !== undefined) {
          out.moving = true;
          out.target = { x: walk.toX, y: walk.toY };
        }
        const line = world.bubbles.line(me.id);
        if (line !== undefined) out.saying = line;
        return out;
      },
    }),
    options,
  );
}

/**
 * `nearby { radius?, limit?, kind? }` — characters and objects within `radius` px (default and
 * most: the scene's perception radius), nearest first, each with its id, kind, position, distance
 * and whether it is in sight (no obstacle in between). Requires sensor `sight`. Limit: 60 calls/min.
 */
export function nearbyTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'nearby',
      class: 'sensor',
      description: `Who and what is around you: characters and objects within a radius (${Number.isFinite(world.perceptionRadius) ? `default and at most ${world.perceptionRadius} px` : 'default: the whole scene'}), nearest first, with ids for other tools, and whether each is in sight.`,
      input_schema: objectOf(
        {
          // An unbounded perception radius has no maximum: Infinity is not JSON.
          radius: {
            type: 'number',
            exclusiveMinimum: 0,
            ...(Number.isFinite(world.perceptionRadius) && { maximum: world.perceptionRadius }),
            description: 'How far to look, px.',
          },
          limit: { type: 'integer', minimum: 1, maximum: MAX_NEARBY, description: `At most this many, nearest first (default ${MAX_NEARBY}).` },
          kind: { type: 'string', minLength: 1, maxLength: 32, description: 'Only things of this kind, e.g. "apple".' },
        },
        [],
      ),
      output_schema: objectOf({
        radius: { type: 'number' },
        objects: {
          type: 'array',
          items: objectOf({
            id: { type: 'string' },
            kind: { type: 'string' },
            role: { enum: ['character', 'object'] },
            x: { type: 'number' },
            y: { type: 'number' },
            distance: { type: 'number' },
            visible: { type: 'boolean' },
          }),
        },
      }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'sight',
      strict_input: true,
      handler: ({ radius, limit, kind }, context): NearbyOutput => {
        const me = caller(world, context);
        const r = radius ?? world.perceptionRadius;
        const objects = nearby(world.entities, me, r, limit ?? MAX_NEARBY, kind);
        // `radius` is reported as JSON can carry it: an unbounded radius as the largest finite number.
        return { radius: Number.isFinite(r) ? r : Number.MAX_VALUE, objects };
      },
    }),
    options,
  );
}

/**
 * `can_see { target }` — whether a straight line from the caller to a character or object (by id)
 * crosses an obstacle, the distance, and the first obstacle in the way. Requires sensor `sight`.
 * Limit: 120 calls/min.
 */
export function canSeeTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'can_see',
      class: 'sensor',
      description: 'Whether you have a clear line of sight to a character or object (by the id `nearby` gives), how far it is, and what blocks the view.',
      input_schema: objectOf({ target: { type: 'string', minLength: 1, maxLength: 64, description: 'The id of a character or object.' } }),
      output_schema: objectOf({ target: { type: 'string' }, visible: { type: 'boolean' }, distance: { type: 'number' }, blocked_by: { type: 'string' } }, [
        'target',
        'visible',
        'distance',
      ]),
      limits: { calls_per_minute: 120 },
      requires_capability: 'sight',
      strict_input: true,
      handler: ({ target }, context): CanSeeOutput => {
        const me = caller(world, context);
        const other = world.entities.get(target);
        if (other === undefined || other.role === 'obstacle')
          throw new ToolError(`there is no character or object "${target}" in this scene; \`nearby\` lists the ids around you`);
        const line = lineOfSight(world.entities, positionOf(me), positionOf(other), [me.id, other.id]);
        const out: CanSeeOutput = { target, visible: line.visible, distance: line.distance };
        if (line.blockedBy !== undefined) out.blocked_by = line.blockedBy;
        return out;
      },
    }),
    options,
  );
}
