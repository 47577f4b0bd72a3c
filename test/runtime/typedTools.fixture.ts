// Compiled, not run (typedTools.types.test.ts): how registerTool types a handler from what the tool
// declares. Each `@ts-expect-error` must meet an error; an unused one fails the compile.

import * as v from 'valibot';
import * as z from 'zod';
import type { Capsule } from '../../src/runtime/capsule.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import { defineTool, type ToolDefinition } from '../../src/runtime/tool.js';
import { withOverrides } from '../../src/runtime/toolOverrides.js';

declare const capsule: Capsule;

// A JSON Schema written inline: read as const.
capsule.registerTool({
  id: 'say',
  class: 'actuator',
  description: 'Say something.',
  input_schema: {
    type: 'object',
    properties: { text: { type: 'string' }, to: { type: 'string' }, volume: { enum: ['whisper', 'shout'] } },
    required: ['text'],
  },
  output_schema: { type: 'object', properties: { heard_by: { type: 'array', items: { type: 'string' } } }, required: ['heard_by'] },
  handler: (input) => {
    const text: string = input.text;
    const to: string | undefined = input.to;
    const volume: 'whisper' | 'shout' | undefined = input.volume;
    // @ts-expect-error `to` is not required: it may be missing
    const sure: string = input.to;
    // @ts-expect-error `txet` is not declared
    void input.txet;
    // @ts-expect-error `volume` is one of two words
    const loud: 'loud' = input.volume;
    void [sure, loud, volume];
    return { heard_by: [text, to ?? 'everyone'] };
  },
});

// A schema kept in a constant `as const`; a handler returning what the output schema does not allow.
const position = {
  type: 'object',
  properties: { x: { type: 'number' }, y: { type: ['number', 'null'] } },
  required: ['x', 'y'],
  additionalProperties: false,
} as const;
capsule.registerTool({
  id: 'where',
  class: 'sensor',
  description: 'Where am I?',
  input_schema: { type: 'object', properties: {} },
  output_schema: position,
  handler: () => ({ x: 1, y: null }),
});
capsule.registerTool({
  id: 'where_wrong',
  class: 'sensor',
  description: 'Where am I?',
  input_schema: { type: 'object', properties: {} },
  output_schema: position,
  // @ts-expect-error x must be a number
  handler: () => ({ x: 'one', y: 2 }),
});

// zod: the validator's output type is the input (defaults filled in), its JSON Schema what agents read.
capsule.registerTool({
  id: 'jump',
  class: 'actuator',
  description: 'Jump.',
  input_validator: z.object({ height: z.number().max(3), times: z.number().int().default(1) }),
  output_validator: z.object({ landed: z.boolean() }),
  handler: (input) => {
    const times: number = input.times;
    // @ts-expect-error height is a number
    const high: string = input.height;
    void [times, high];
    return { landed: true };
  },
});
capsule.registerTool({
  id: 'jump_wrong',
  class: 'actuator',
  description: 'Jump.',
  input_validator: z.object({ height: z.number() }),
  output_validator: z.object({ landed: z.boolean() }),
  // @ts-expect-error landed must be a boolean
  handler: () => ({ landed: 'yes' }),
});

// valibot, with its JSON Schema given.
capsule.registerTool({
  id: 'wave',
  class: 'actuator',
  description: 'Wave.',
  input_validator: v.object({ hand: v.picklist(['left', 'right']) }),
  input_schema: { type: 'object', properties: { hand: { enum: ['left', 'right'] } }, required: ['hand'] },
  output_schema: { type: 'object', properties: {} },
  handler: (input) => {
    const hand: 'left' | 'right' = input.hand;
    void hand;
    return {};
  },
});

// oneOf beside properties: each branch is read with the keywords beside it.
capsule.registerTool({
  id: 'turn',
  class: 'actuator',
  description: 'Turn to a heading or toward someone.',
  input_schema: {
    type: 'object',
    properties: { heading: { type: 'number' }, toward: { type: 'string' } },
    oneOf: [{ required: ['heading'] }, { required: ['toward'] }],
  },
  output_schema: { type: 'object', properties: {} },
  handler: (input) => {
    if (input.toward !== undefined) {
      const toward: string = input.toward;
      void toward;
    }
    // @ts-expect-error heading may be missing when toward is given
    const heading: number = input.heading;
    void heading;
    return {};
  },
});

// Neither a schema nor a validator for the input.
// @ts-expect-error input_schema or input_validator is needed
capsule.registerTool({ id: 'nothing', class: 'sensor', description: 'Nothing.', output_schema: { type: 'object' }, handler: () => ({}) });

// A schema known only at run time types nothing: the handler says its input type, as before.
declare const dynamic: JsonObject;
capsule.registerTool({
  id: 'dynamic',
  class: 'sensor',
  description: 'Built at run time.',
  input_schema: dynamic,
  output_schema: dynamic,
  handler: (input: { x: number }) => ({ x: input.x }),
});

// A ToolDefinition built elsewhere (as the adapters build theirs) registers as it is.
declare const built: ToolDefinition<{ x: number }, { ok: boolean }>;
capsule.registerTool(built);

// A definition made apart from registerTool (a factory, as the adapters make theirs) is typed the
// same way by defineTool, and keeps its types through withOverrides.
const point = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] } as const;
function walkTool(speed: number) {
  return defineTool({
    id: 'walk',
    class: 'actuator',
    description: 'Walk to a point.',
    input_schema: {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' }, speed: { type: 'number', maximum: speed } },
      required: ['x', 'y'],
    },
    output_schema: point,
    handler: ({ x, y, speed }) => {
      const pace: number | undefined = speed;
      // @ts-expect-error x is a number
      const named: string = x;
      void [pace, named];
      return { x, y };
    },
  });
}
const walk = withOverrides(walkTool(3), { id: 'stroll' });
const typed: ToolDefinition<{ x: number; y: number; speed?: number }, { x: number; y: number }> = walk;
// @ts-expect-error its input is not `any`: a handler for { x } alone cannot stand in for it
const loose: ToolDefinition<{ x: number }, { x: number; y: number }> = walk;
void [typed, loose];
capsule.registerTool(walk);

defineTool({
  id: 'walk_wrong',
  class: 'actuator',
  description: 'Walk to a point.',
  input_schema: point,
  output_schema: point,
  // @ts-expect-error y must be a number
  handler: ({ x }) => ({ x, y: 'north' }),
});

// The output type named by the handler's return: it must fit the output schema.
type Spot = { x: number; y: number };
const spot = defineTool({
  id: 'spot',
  class: 'sensor',
  description: 'Where?',
  input_schema: { type: 'object', properties: {} },
  output_schema: point,
  handler: (): Spot => ({ x: 1, y: 2 }),
});
void spot;
defineTool({
  id: 'spot_wrong',
  class: 'sensor',
  description: 'Where?',
  input_schema: { type: 'object', properties: {} },
  output_schema: point,
  // @ts-expect-error y may be missing from this type, and the schema requires it
  handler: (): { x: number; y?: number } => ({ x: 1 }),
});

// A validator types the handler here too; the definition still carries the JSON Schemas agents read.
const hop = defineTool({
  id: 'hop',
  class: 'actuator',
  description: 'Hop.',
  input_validator: z.object({ times: z.number().int().default(1) }),
  input_schema: { type: 'object', properties: { times: { type: 'integer' } } },
  output_schema: { type: 'object', properties: { hops: { type: 'integer' } }, required: ['hops'] },
  handler: ({ times }) => ({ hops: times }),
});
const hopTyped: ToolDefinition<{ times: number }, { hops: number }> = hop;
void hopTyped;
// @ts-expect-error output_schema is missing: a ToolDefinition carries both JSON Schemas
defineTool({
  id: 'nothing',
  class: 'sensor',
  description: 'Nothing.',
  input_schema: { type: 'object', properties: {} },
  output_validator: z.object({}),
  handler: () => ({}),
});

// An output with an enum, from a handler that takes no input (TypeScript types such a handler before
// it knows the output schema): its literal stays a literal; one the enum lacks is refused.
capsule.registerTool({
  id: 'kind',
  class: 'sensor',
  description: 'What am I?',
  input_schema: { type: 'object', properties: {} },
  output_schema: { type: 'object', properties: { kind: { enum: ['item', 'person'] }, tags: { type: 'array', items: { type: 'string' } } }, required: ['kind'] },
  handler: () => ({ kind: 'item', tags: ['small'] }),
});
capsule.registerTool({
  id: 'kind_async',
  class: 'sensor',
  description: 'What am I?',
  input_schema: { type: 'object', properties: {} },
  output_schema: { type: 'object', properties: { kind: { enum: ['item', 'person'] } }, required: ['kind'] },
  handler: async () => ({ kind: 'person' }),
});
capsule.registerTool({
  id: 'kind_wrong',
  class: 'sensor',
  description: 'What am I?',
  input_schema: { type: 'object', properties: {} },
  output_schema: { type: 'object', properties: { kind: { enum: ['item', 'person'] } }, required: ['kind'] },
  // @ts-expect-error 'place' is not one of the kinds
  handler: () => ({ kind: 'place' }),
});
