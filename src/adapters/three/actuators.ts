// The actuators of a Three scene: `move_to` (walk to a point), `turn_to` (face a heading or an
// object) and `stop`. A move or turn happens across frames at a speed; its result comes when it
// is done — or when something ended it first, which the result says (`end`).

import { MathUtils, Vector3 } from 'three';
import { CapsuleError, ToolError } from '../../base/errors.js';
import type { FromSchema } from '../../runtime/schemaType.js';
import { defineTool, type ToolDefinition } from '../../runtime/tool.js';
import { NO_INPUT, objectOf, POINT_3D_SCHEMA } from '../shared/schemas.js';
import { degrees, headingBetween, headingOf, point, round, type Point } from './geometry.js';
import type { MotionEnd } from './motion.js';
import { caller, idInput, positive, target, withOptions, type SceneBinding, type ThreeToolOptions } from './threeTool.js';

const END_SCHEMA = { enum: ['done', 'replaced', 'stopped', 'removed', 'disposed'] } as const;

/** The ground rectangle agents may walk to; targets outside it are refused by the input schema. */
export interface Area {
  minX: number;
  maxX: number;
  minZ: number;
  maxZ: number;
}

export interface MoveToOptions extends ThreeToolOptions {
  /** Walking speed when the agent gives none, units/s. Default 2. */
  speed?: number;
  /** The fastest an agent may ask for, units/s. Default 6. */
  maxSpeed?: number;
  /** Turns to face where it walks, at this many degrees/s; 0 keeps the heading. Default 360. */
  turnSpeed?: number;
  /** Where agents may walk to (in the input schema, so agents see it in the manifest). Default: anywhere. */
  area?: Area;
  /** The longest a move may take; longer walks are refused (walk in legs). Default 20,000 ms. */
  timeoutMs?: number;
}

/** A number an agent gives, bounded where the game's options say. */
type NumberSchema = { type: 'number'; description: string; minimum?: number; maximum?: number };

/** `move_to`'s input: a point (inside `area`, when there is one) and a speed up to `maxSpeed`. */
function moveToInput(area: Area | undefined, maxSpeed: number) {
  const coordinate = (axis: 'x' | 'z'): NumberSchema => {
    const schema: NumberSchema = { type: 'number', description: `World ${axis} of the point to walk to.` };
    if (area !== undefined) Object.assign(schema, axis === 'x' ? { minimum: area.minX, maximum: area.maxX } : { minimum: area.minZ, maximum: area.maxZ });
    return schema;
  };
  return objectOf(
    {
      x: coordinate('x'),
      z: coordinate('z'),
      y: { type: 'number', description: 'Height to reach; leave out to keep yours.' },
      speed: { type: 'number', exclusiveMinimum: 0, maximum: maxSpeed, description: 'Units per second.' },
    },
    ['x', 'z'],
  );
}

export type MoveToInput = FromSchema<ReturnType<typeof moveToInput>>;
export type MoveToOutput = { arrived: boolean; end: MotionEnd; position: Point; heading: number };

/**
 * `move_to { x, z, y?, speed? }` — walks in a straight line to a world point (y: keep the current
 * height unless given) at `speed` units/s, turning to face the way; the result comes on arrival
 * (`arrived: true`), or when a newer move, `stop`, or the game ended the walk (`end` says which).
 * A walk that would outlast `timeoutMs` is refused. Nothing stops at walls: the game may `stop` a
 * character on a collision. Requires actuator `legs`. Limit: 60 calls/min — a new destination
 * every second is already restless.
 */
export function moveToTool(binding: SceneBinding, options: MoveToOptions = {}): ToolDefinition<MoveToInput, MoveToOutput> {
  const where = 'moveToTool';
  const maxSpeed = positive(where, 'maxSpeed', options.maxSpeed, 6);
  const speed = Math.min(positive(where, 'speed', options.speed, 2), maxSpeed);
  const turnSpeed = options.turnSpeed === 0 ? 0 : positive(where, 'turnSpeed', options.turnSpeed, 360);
  const timeoutMs = positive(where, 'timeoutMs', options.timeoutMs, 20_000);
  const area = checkArea(options.area);
  // The slowest walk gets 90% of the timeout, so it ends well before the capsule gives up on it.
  const budgetMs = timeoutMs * 0.9;
  return withOptions(
    defineTool({
      id: 'move_to',
      class: 'actuator',
      description: `Walk in a straight line to a point on the ground (x, z; y is up), at ${speed} units/s unless you give a speed (at most ${maxSpeed}). The result comes when you arrive, or says why you stopped. A walk may take at most ${Math.floor(budgetMs / 1000)} s: go in legs.`,
      input_schema: moveToInput(area, maxSpeed),
      output_schema: objectOf({ arrived: { type: 'boolean' }, end: END_SCHEMA, position: POINT_3D_SCHEMA, heading: { type: 'number' } }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      timeout_ms: timeoutMs,
      handler: async (input, context): Promise<MoveToOutput> => {
        const me = caller(binding, context);
        const from = me.object.getWorldPosition(new Vector3());
        const to = new Vector3(input.x, input.y ?? from.y, input.z);
        const pace = input.speed ?? speed;
        const distance = from.distanceTo(to);
        if ((distance / pace) * 1000 > budgetMs) {
          throw new ToolError(
            `that point is ${round(distance)} units away; at ${pace} units/s one move_to covers at most ${round((pace * budgetMs) / 1000)}: walk in shorter legs`,
          );
        }
        const end = await binding.motion.moveTo(me, to, pace, turnSpeed === 0 ? undefined : MathUtils.degToRad(turnSpeed), context.signal);
        return { arrived: end === 'done', end, position: point(me.object.getWorldPosition(new Vector3())), heading: degrees(headingOf(me.object)) };
      },
    }),
    options,
  );
}

export interface TurnToOptions extends ThreeToolOptions {
  /** Degrees per second. Default 180. */
  turnSpeed?: number;
}

const TURN_TO_INPUT = {
  type: 'object',
  properties: {
    heading: { type: 'number', minimum: -360, maximum: 360, description: 'Degrees; 0 faces +z, 90 faces +x.' },
    toward: idInput('The id of an object to face.'),
  },
  oneOf: [{ required: ['heading'] }, { required: ['toward'] }],
} as const;

/** `{ heading }` or `{ toward }`; the schema refuses both at once. */
export type TurnToInput = FromSchema<typeof TURN_TO_INPUT>;
export type TurnToOutput = { done: boolean; end: MotionEnd; heading: number };

/**
 * `turn_to { heading } | { toward }` — turns on the spot, the shorter way, to a heading in degrees
 * (0 faces +z, 90 faces +x) or to face a registered object; the result comes when it faces it.
 * Requires actuator `legs`. Limit: 60 calls/min.
 */
export function turnToTool(binding: SceneBinding, options: TurnToOptions = {}): ToolDefinition<TurnToInput, TurnToOutput> {
  const turnSpeed = MathUtils.degToRad(positive('turnToTool', 'turnSpeed', options.turnSpeed, 180));
  return withOptions(
    defineTool({
      id: 'turn_to',
      class: 'actuator',
      description: 'Turn on the spot to a heading in degrees (0 faces +z, 90 faces +x), or to face an object by id (toward). Give one of the two.',
      input_schema: TURN_TO_INPUT,
      output_schema: objectOf({ done: { type: 'boolean' }, end: END_SCHEMA, heading: { type: 'number' } }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: async (input, context): Promise<TurnToOutput> => {
        const me = caller(binding, context);
        let heading: number;
        if (input.toward !== undefined) {
          const other = target(binding, input.toward, me);
          const toward = headingBetween(me.object.getWorldPosition(new Vector3()), binding.objects.volume(other).center);
          if (toward === undefined) throw new ToolError(`you stand right on "${other.id}"; there is no way to face it`);
          heading = toward;
        } else heading = MathUtils.degToRad(input.heading!);
        const end = await binding.motion.turnTo(me, heading, turnSpeed, context.signal);
        return { done: end === 'done', end, heading: degrees(headingOf(me.object)) };
      },
    }),
    options,
  );
}

export type StopOutput = { stopped: boolean; position: Point; heading: number };

/**
 * `stop {}` — ends the caller's walk and turn where they are (their results say `end: 'stopped'`);
 * `stopped` is false when nothing was under way. Requires actuator `legs`. Limit: 60 calls/min.
 */
export function stopTool(binding: SceneBinding, options?: ThreeToolOptions) {
  return withOptions(
    defineTool({
      id: 'stop',
      class: 'actuator',
      description: 'Stop walking and turning, right where you are.',
      input_schema: NO_INPUT,
      output_schema: objectOf({ stopped: { type: 'boolean' }, position: POINT_3D_SCHEMA, heading: { type: 'number' } }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: (_input, context): StopOutput => {
        const me = caller(binding, context);
        const stopped = binding.motion.stop(me, 'stopped');
        return { stopped, position: point(me.object.getWorldPosition(new Vector3())), heading: degrees(headingOf(me.object)) };
      },
    }),
    options,
  );
}

function checkArea(area: Area | undefined): Area | undefined {
  if (area === undefined) return undefined;
  const { minX, maxX, minZ, maxZ } = area;
  if (![minX, maxX, minZ, maxZ].every(Number.isFinite) || minX > maxX || minZ > maxZ) {
    throw new CapsuleError('AICC_INVALID_OPTION', `moveToTool: area needs finite minX <= maxX and minZ <= maxZ, got ${JSON.stringify(area)}`);
  }
  return { minX, maxX, minZ, maxZ };
}
