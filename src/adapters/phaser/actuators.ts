// The actuators of a Phaser scene: `move_to`, `move_by` and `stop` (legs), `play_animation` (body)
// and `say` (voice). A move starts a walk and answers at once; the walk goes on across frames and
// its end comes as a `state_change { entity, field: 'moving', value: false, reason }`.

import { ToolError } from '../../base/errors.js';
import { defineTool } from '../../runtime/tool.js';
import { NO_INPUT, objectOf, POINT_2D_SCHEMA } from '../shared/schemas.js';
import { positionOf, type Entity } from './entities.js';
import { caller, checkInside, coordinate, round, withOptions, type PhaserToolOptions, type SceneWorld } from './phaserTool.js';
import { readingTimeMs } from './speech.js';

export type MoveOutput = { from: { x: number; y: number }; to: { x: number; y: number }; distance: number; speed: number; eta_ms: number };
export type StopOutput = { x: number; y: number; was_moving: boolean };
export type AnimationOutput = { key: string; frames: number; duration_ms: number; repeat: boolean };
export type SayOutput = { text: string; heard_by: string[] };

/** Fastest walk an agent may ask for, px/s. */
export const MAX_SPEED = 1000;
/** Longest line `say` takes, in characters (it has to fit in a bubble). */
export const MAX_LINE_LENGTH = 140;

const SPEED_SCHEMA = { type: 'number', exclusiveMinimum: 0, maximum: MAX_SPEED, description: 'Pixels per second (default: your own walking speed).' } as const;
const MOVE_OUTPUT = objectOf({
  from: POINT_2D_SCHEMA,
  to: POINT_2D_SCHEMA,
  distance: { type: 'number' },
  speed: { type: 'number' },
  eta_ms: { type: 'number' },
});

function walkTo(world: SceneWorld, me: Entity, x: number, y: number, speed: number | undefined): MoveOutput {
  if (me.object === undefined) throw new ToolError(`"${me.id}" has no game object to move`);
  checkInside(world, x, y);
  const from = positionOf(me);
  const pace = speed ?? me.speed;
  world.walks.start(me, x, y, pace);
  const distance = Math.hypot(x - from.x, y - from.y);
  return { from: { x: round(from.x), y: round(from.y) }, to: { x, y }, distance: round(distance), speed: pace, eta_ms: Math.round((distance / pace) * 1000) };
}

/**
 * `move_to { x, y, speed? }` — walk in a straight line to a point inside the world; a walk under way
 * is replaced. Answers at once with the distance and the time it should take; walls (Arcade
 * colliders) may stop the walk early. Requires actuator `legs`. Limit: 60 calls/min.
 */
export function moveToTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'move_to',
      class: 'actuator',
      description:
        'Walk in a straight line to a point (pixels; y grows downward). Answers at once; when the walk ends you get a state_change on your "moving" field saying arrived or blocked.',
      input_schema: objectOf({ x: coordinate('Target x.'), y: coordinate('Target y.'), speed: SPEED_SCHEMA }, ['x', 'y']),
      output_schema: MOVE_OUTPUT,
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: ({ x, y, speed }, context): MoveOutput => walkTo(world, caller(world, context), x, y, speed),
    }),
    options,
  );
}

/**
 * `move_by { dx, dy, speed? }` — walk by an offset from where the caller stands (at most 2,000 px
 * each way). Requires actuator `legs`. Limit: 60 calls/min, like move_to.
 */
export function moveByTool(world: SceneWorld, options?: PhaserToolOptions) {
  const offset = (description: string) => ({ type: 'number', minimum: -2000, maximum: 2000, description }) as const;
  return withOptions(
    defineTool({
      id: 'move_by',
      class: 'actuator',
      description: 'Walk by an offset from where you stand, e.g. { "dx": 40, "dy": 0 } is 40 px to the right. Answers at once, like move_to.',
      input_schema: objectOf({ dx: offset('Pixels to the right (negative: left).'), dy: offset('Pixels down (negative: up).'), speed: SPEED_SCHEMA }, [
        'dx',
        'dy',
      ]),
      output_schema: MOVE_OUTPUT,
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: ({ dx, dy, speed }, context): MoveOutput => {
        const me = caller(world, context);
        const at = positionOf(me);
        return walkTo(world, me, round(at.x + dx), round(at.y + dy), speed);
      },
    }),
    options,
  );
}

/** `stop {}` — stand still where you are. Requires actuator `legs`. Limit: 60 calls/min. */
export function stopTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'stop',
      class: 'actuator',
      description: 'Stop walking and stand where you are.',
      input_schema: NO_INPUT,
      output_schema: objectOf({ x: { type: 'number' }, y: { type: 'number' }, was_moving: { type: 'boolean' } }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: (_input, context): StopOutput => {
        const me = caller(world, context);
        const wasMoving = world.walks.get(me.id) !== undefined;
        world.walks.stop(me.id, 'stopped');
        const at = positionOf(me);
        return { x: round(at.x), y: round(at.y), was_moving: wasMoving };
      },
    }),
    options,
  );
}

/**
 * `play_animation { key, repeat? }` — plays one of the scene's animations (by its key in the
 * animation manager) on the caller's sprite. Requires actuator `body`. Limit: 30 calls/min.
 */
export function playAnimationTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'play_animation',
      class: 'actuator',
      description: 'Play one of the animations of this game on your character, by its key (e.g. "wave"); repeat: true loops it until the next one.',
      input_schema: objectOf(
        {
          key: { type: 'string', minLength: 1, maxLength: 64, description: 'The animation key.' },
          repeat: { type: 'boolean', description: 'Loop it (default false: play once).' },
        },
        ['key'],
      ),
      output_schema: objectOf({ key: { type: 'string' }, frames: { type: 'integer' }, duration_ms: { type: 'number' }, repeat: { type: 'boolean' } }),
      limits: { calls_per_minute: 30 },
      requires_capability: 'body',
      strict_input: true,
      handler: ({ key, repeat = false }, context): AnimationOutput => {
        const me = caller(world, context);
        const sprite = me.object as { play?: (config: { key: string; repeat: number }) => unknown } | undefined;
        if (typeof sprite?.play !== 'function') throw new ToolError(`your character "${me.id}" is not a sprite and cannot play animations`);
        const animation = world.scene.anims.get(key);
        if (animation === undefined || animation === null) {
          const known = world.scene.anims
            .toJSON()
            .anims.slice(0, 20)
            .map((anim) => anim.key);
          throw new ToolError(`there is no animation "${key}"; animations: ${known.length > 0 ? known.join(', ') : '(none)'}`);
        }
        sprite.play({ key, repeat: repeat ? -1 : 0 });
        return { key, frames: animation.frames.length, duration_ms: Math.round(animation.duration), repeat };
      },
    }),
    options,
  );
}

/**
 * `say { text, to?, duration_ms? }` — shows a speech bubble above the caller and sends the words as
 * `agent_message` to every character within the perception radius (addressing one by id still lets
 * the others overhear). Requires actuator `voice`. Limit: 20 calls/min — a conversation, not a flood.
 */
export function sayTool(world: SceneWorld, options?: PhaserToolOptions) {
  return withOptions(
    defineTool({
      id: 'say',
      class: 'actuator',
      description: `Say something aloud (at most ${MAX_LINE_LENGTH} characters): a speech bubble shows it and everyone ${Number.isFinite(world.perceptionRadius) ? `within ${world.perceptionRadius} px` : 'in the scene'} hears it; "to" addresses one of them by id.`,
      input_schema: objectOf(
        {
          text: { type: 'string', minLength: 1, maxLength: MAX_LINE_LENGTH, description: 'What to say.' },
          to: { type: 'string', minLength: 1, maxLength: 64, description: 'Optional: the id of the one you address.' },
          duration_ms: { type: 'integer', minimum: 500, maximum: 10_000, description: 'How long the bubble stays (default: by length).' },
        },
        ['text'],
      ),
      output_schema: objectOf({ text: { type: 'string' }, heard_by: { type: 'array', items: { type: 'string' } } }),
      limits: { calls_per_minute: 20 },
      requires_capability: 'voice',
      strict_input: true,
      handler: ({ text, to, duration_ms }, context): SayOutput => {
        const me = caller(world, context);
        if (me.object === undefined) throw new ToolError(`"${me.id}" has no game object to speak from`);
        if (to !== undefined && world.entities.get(to) === undefined)
          throw new ToolError(`there is no "${to}" in this scene to talk to; \`nearby\` lists the ids around you`);
        world.bubbles.show(me.id, me.object, text, duration_ms ?? readingTimeMs(text.length));
        return { text, heard_by: world.hear(me, text, to) };
      },
    }),
    options,
  );
}
