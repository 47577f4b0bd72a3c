// One realistic message of each aicc/0.1 type, as they travel in a running village (a 2d world, three
// tools, sequenced bridge ids, random agent ids), for bench/codec.bench.ts.

import type { AiccMessage, MessageType, ToolDescriptor } from '../src/protocol/messages.js';

const SESSION = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
/** A bridge message id: a version 8 prefix and a 48-bit sequence number (src/protocol/ids.ts). */
const bridgeId = (sequence: number): string => `5d1c9a0e-72b4-8a31-9c4e-${sequence.toString(16).padStart(12, '0')}`;
const AGENT_ID = 'b7e3c1a2-9f04-4d6e-8a15-2c7d9e0f4b63';

const bridge = <T extends MessageType>(type: T, sequence: number) => ({
  protocol: 'aicc/0.1' as const,
  type,
  session_id: SESSION,
  message_id: bridgeId(sequence),
});
const agent = <T extends MessageType>(type: T) => ({ protocol: 'aicc/0.1' as const, type, session_id: SESSION, message_id: AGENT_ID });

const TOOLS: ToolDescriptor[] = [
  {
    id: 'move_to',
    class: 'actuator',
    description: 'Walks toward a tile, one tile per tick; stops at walls and water.',
    input_schema: {
      type: 'object',
      properties: {
        x: { type: 'integer', minimum: 0, maximum: 63 },
        y: { type: 'integer', minimum: 0, maximum: 63 },
        run: { type: 'boolean', default: false },
      },
      required: ['x', 'y'],
    },
    output_schema: {
      type: 'object',
      properties: {
        at: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } }, required: ['x', 'y'] },
        arrived: { type: 'boolean' },
      },
      required: ['at', 'arrived'],
    },
    limits: { calls_per_minute: 600 },
    requires_capability: 'legs',
    strict_input: true,
  },
  {
    id: 'look',
    class: 'sensor',
    description: 'Lists what the character sees within a radius: entities, items and terrain.',
    input_schema: { type: 'object', properties: { radius: { type: 'integer', minimum: 1, maximum: 8 } } },
    output_schema: {
      type: 'object',
      properties: {
        entities: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, kind: { type: 'string' }, x: { type: 'integer' }, y: { type: 'integer' } },
            required: ['id', 'kind', 'x', 'y'],
          },
        },
      },
      required: ['entities'],
    },
    limits: { calls_per_minute: 120 },
    requires_capability: 'sight',
  },
  {
    id: 'say',
    class: 'generator',
    description: 'Says a line aloud; characters within earshot hear it as an audio event.',
    input_schema: { type: 'object', properties: { text: { type: 'string', minLength: 1, maxLength: 280 }, to: { type: 'string' } }, required: ['text'] },
    output_schema: { type: 'object', properties: { heard_by: { type: 'array', items: { type: 'string' } } }, required: ['heard_by'] },
    limits: { calls_per_minute: 30, calls_per_session: 500 },
    requires_capability: 'voice',
  },
];

/** The nine types, in the protocol's order, each a message a running session would carry. */
export const CODEC_EXAMPLES: ReadonlyArray<{ type: MessageType; note: string; message: AiccMessage }> = [
  {
    type: 'session_init',
    note: 'three tools with schemas',
    message: {
      ...bridge('session_init', 1),
      tick_rate_hz: 10,
      tick_mode: 'fixed',
      world: { name: 'Millbrook', kind: '2d' },
      capabilities: { sensors: ['sight'], actuators: ['legs'], generators: ['voice'] },
      tools: TOOLS,
      agent_model: { class: 'cloud_large', expected_first_token_ms: 600, expected_full_response_ms: 4000 },
      event_subscriptions: ['tick', 'collision', 'audio', 'state_change', 'agent_message'],
    },
  },
  { type: 'session_resume', note: 'names the last bridge message held', message: { ...agent('session_resume'), message_id: bridgeId(0x2f1) } },
  { type: 'session_close', note: 'with a reason', message: { ...agent('session_close'), reason: 'done for today' } },
  { type: 'manifest_request', note: 'envelope only', message: agent('manifest_request') },
  { type: 'tool_call', note: 'move_to', message: { ...agent('tool_call'), call_id: 'c42', tool: 'move_to', input: { x: 12, y: 7, run: true } } },
  {
    type: 'tool_result',
    note: 'ok, with meta',
    message: {
      ...bridge('tool_result', 0x2f2),
      call_id: 'c42',
      ok: true,
      output: { at: { x: 11, y: 7 }, arrived: false },
      meta: { tick: 1234, latency_ms: 3, source: 'handler' },
    },
  },
  {
    type: 'event',
    note: 'state_change of a position',
    message: {
      ...bridge('event', 0x2f3),
      topic: 'state_change',
      payload: { entity: 'e417', field: 'position', value: { x: 12, y: 7 }, previous: { x: 11, y: 7 } },
    },
  },
  {
    type: 'error',
    note: 'a frame refused',
    message: { ...bridge('error', 0x2f4), error: { code: 'invalid_input', message: 'frame is not JSON (Unexpected end of JSON input)', retryable: false } },
  },
  { type: 'heartbeat', note: 'bare, the common one', message: bridge('heartbeat', 0x2f5) },
];
