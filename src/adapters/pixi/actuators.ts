// The actuators of a PixiJS stage: `move_to` (walk in a straight line to a point), `stop` and `say`
// (a line every character in earshot hears, and the game shows). A walk's end reaches the walker as
// a state_change (binding.ts).

import { ToolError } from '../../base/errors.js';
import { defineTool } from '../../runtime/tool.js';
import { NO_INPUT, objectOf, POINT_2D_SCHEMA } from '../shared/schemas.js';
import { round } from '../shared/plane.js';
import { positionOf } from './bodies.js';
import { caller, coordinate, ID_INPUT, type PixiStage, type PixiToolOptions, withOptions } from './pixiTool.js';

export type MoveOutput = { from: { x: number; y: number }; to: { x: number; y: number }; distance: number; speed: number; eta_ms: number };
export type StopOutput = { x: number; y: number; was_moving: boolean };
export type SayOutput = { text: string; heard_by: string[] };

/** Fastest walk an agent may ask for, px/s. */
export const MAX_SPEED = 1000;
/** Longest line `say` takes, in characters (it has to fit in a bubble). */
export const MAX_LINE_LENGTH = 140;

/**
 * `move_to { x, y, speed? }` — walk in a straight line to a point (inside the stage's bounds, when
 * it has them); a walk under way is replaced. The walker hears how it ended (arrived, or blocked by
 * an obstacle) as a state_change. Requires actuator `legs`. Limit: 60 calls/min.
 */
export function moveToTool(stage: PixiStage, options?: PixiToolOptions) {
  return withOptions(
    defineTool({
      id: 'move_to',
      class: 'actuator',
      description: 'Walk in a straight line to a point (x, y in pixels; y grows downward). You hear when you arrive, or what blocked you.',
      input_schema: objectOf(
        {
          x: coordinate('Target x.'),
          y: coordinate('Target y.'),
          speed: { type: 'number', exclusiveMinimum: 0, maximum: MAX_SPEED, description: 'Pixels per second (default: your own walking speed).' },
        },
        ['x', 'y'],
      ),
      output_schema: objectOf({
        from: POINT_2D_SCHEMA,
        to: POINT_2D_SCHEMA,
        distance: { type: 'number' },
        speed: { type: 'number' },
        eta_ms: { type: 'number' },
      }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: ({ x, y, speed }, context): MoveOutput => {
        const me = caller(stage, context);
        const b = stage.bounds;
        if (b !== undefined && (x < b.x || y < b.y || x > b.x + b.width || y > b.y + b.height))
          throw new ToolError(`(${x}, ${y}) is outside the stage; x must be within ${b.x}..${b.x + b.width} and y within ${b.y}..${b.y + b.height}`);
        const from = positionOf(me);
        const pace = speed ?? me.speed;
        stage.walks.start(me, { x, y }, pace);
        const distance = Math.hypot(x - from.x, y - from.y);
        return {
          from: { x: round(from.x), y: round(from.y) },
          to: { x, y },
          distance: round(distance),
          speed: pace,
          eta_ms: Math.round((distance / pace) * 1000),
        };
      },
    }),
    options,
  );
}

/** `stop {}` — stop walking where you stand. Requires actuator `legs`. Limit: 60 calls/min. */
export function stopTool(stage: PixiStage, options?: PixiToolOptions) {
  return withOptions(
    defineTool({
      id: 'stop',
      class: 'actuator',
      description: 'Stop walking, where you stand.',
      input_schema: NO_INPUT,
      output_schema: objectOf({ x: { type: 'number' }, y: { type: 'number' }, was_moving: { type: 'boolean' } }),
      limits: { calls_per_minute: 60 },
      requires_capability: 'legs',
      strict_input: true,
      handler: (_input, context): StopOutput => {
        const me = caller(stage, context);
        const was_moving = stage.walks.stop(me.id);
        const at = positionOf(me);
        return { x: round(at.x), y: round(at.y), was_moving };
      },
    }),
    options,
  );
}

/**
 * `say { text, to? }` — say a line aloud: the game shows it (PixiBinding's onSay), and every other
 * character within the perception radius hears it as agent_message (addressing one by id still lets
 * the others overhear). Requires actuator `voice`. Limit: 20 calls/min.
 */
export function sayTool(stage: PixiStage, options?: PixiToolOptions) {
  return withOptions(
    defineTool({
      id: 'say',
      class: 'actuator',
      description: `Say something aloud (at most ${MAX_LINE_LENGTH} characters): everyone within ${stage.perceptionRadius} px hears it; "to" addresses one of them by id.`,
      input_schema: objectOf(
        {
          text: { type: 'string', minLength: 1, maxLength: MAX_LINE_LENGTH, description: 'What to say.' },
          to: { ...ID_INPUT, description: 'Optional: the id of the one you address.' },
        },
        ['text'],
      ),
      output_schema: objectOf({ text: { type: 'string' }, heard_by: { type: 'array', items: { type: 'string' } } }),
      limits: { calls_per_minute: 20 },
      requires_capability: 'voice',
      strict_input: true,
      handler: ({ text, to }, context): SayOutput => {
        const me = caller(stage, context);
        if (to !== undefined && stage.bodies.get(to)?.role !== 'character')
          throw new ToolError(`there is no character "${to}" here to talk to; \`nearby\` lists the ids around you`);
        return { text, heard_by: stage.say(me, text, to) };
      },
    }),
    options,
  );
}
