// Compiled, not run (typedTools.types.test.ts): how registerTool types a handler from what the tool
// declares. Each `@ts-expect-error` must meet an error; an unused one fails the compile.

import * as v from 'valibot';
import * as z from 'zod';
import type { Capsule } from '../../src/runtime/capsule.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import type { ToolDefinition } from '../../src/runtime/tool.js';

declare const capsule: Capsule;

// A JSON Schema written inline: read as const.
capsule.registerTool({
  id: 'say',
  class: 'actuator',
  description: 'Say something.',
  input_schema: { type: 'object', properties: { text: { type: 'string' }, to: { type: 'string' }, volume: { enum: ['whisper', 'shout'] } }, required: ['text'] },
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
const position = { type: 'object', properties: { x: { type: 'number' }, y: { type: ['number', 'null'] } }, required: ['x', 'y'], additionalProperties: false } as const;
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

// Neither a schema nor a validator for the input.
// @ts-expect-error input_schema or input_validator is needed
capsule.registerTool({ id: 'nothing', class: 'sensor', description: 'Nothing.', output_schema: { type: 'object' }, handler: () => ({}) });

// A schema known only at run time types nothing: the handler says its input type, as before.
declare const dynamic: JsonObject;
capsule.registerTool({ id: 'dynamic', class: 'sensor', description: 'Built at run time.', input_schema: dynamic, output_schema: dynamic, handler: (input: { x: number }) => ({ x: input.x }) });

// A ToolDefinition built elsewhere (as the adapters build theirs) registers as it is.
declare const built: ToolDefinition<{ x: number }, { ok: boolean }>;
capsule.registerTool(built);
