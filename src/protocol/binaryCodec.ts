// Binary frames for aicc/0.1, described with typed-binary schemas: the same messages as the JSON
// codec in far fewer bytes (ids as 16 raw bytes, enums as one byte, no quoted keys).
//
// Layout, little-endian: a message type byte, then that type's fields in the order of BODIES.
// Strings are a LEB128 header (length * 2, low bit set for UTF-16) and their bytes; an optional
// field is a presence byte and its value; free-form JSON is a tag byte per value. Wire order is
// append-only: new message types, enum values and JSON tags go at the end.

import { bool, dynamicArrayOf } from 'typed-binary';
import type { ISerialInput, ISerialOutput } from 'typed-binary';
import { callOf, checkStructure, PEEK_CHARS, type FrameCall, type InboundLimits, type Verdict } from './inbound.js';
import { ERROR_CODES, PROTOCOL, TOPICS, type MessageType } from './messages.js';
import { Json } from './binary/json.js';
import { Counted, FrameReader, FrameWriter, Malformed, type Struct, TooDeep, constant, f64, known, opt, struct, text, uuid } from './binary/primitives.js';
import { oversized, type Codec } from './codec.js';

const strings = dynamicArrayOf(text);
const wireError = struct({ code: known(ERROR_CODES), message: text, retryable: bool });
const envelope = (type: MessageType) => ({ protocol: known([PROTOCOL]), type: constant(type), session_id: uuid, message_id: uuid });
const tool = struct({
  id: text,
  class: known(['sensor', 'actuator', 'generator']),
  description: text,
  input_schema: new Json(4), // message > tools > tool > schema
  output_schema: new Json(4),
  limits: opt(struct({ calls_per_minute: opt(f64), calls_per_session: opt(f64) })),
  requires_capability: opt(text),
  strict_input: opt(bool),
});

// A message's tag byte is its index here: append only.
const BODIES: Record<MessageType, Struct> = {
  session_init: struct({
    ...envelope('session_init'),
    tick_rate_hz: f64,
    tick_mode: known(['fixed', 'event', 'hybrid']),
    world: struct({ name: text, kind: known(['2d', '3d', 'text', 'abstract']) }),
    capabilities: struct({ sensors: strings, actuators: strings, generators: strings }),
    tools: dynamicArrayOf(tool),
    agent_model: struct({
      class: known(['edge_small', 'edge_medium', 'cloud_medium', 'cloud_large']),
      expected_first_token_ms: opt(f64),
      expected_full_response_ms: opt(f64),
    }),
    event_subscriptions: opt(strings),
  }),
  session_resume: struct(envelope('session_resume')),
  session_close: struct({ ...envelope('session_close'), reason: opt(text) }),
  manifest_request: struct(envelope('manifest_request')),
  tool_call: struct({ ...envelope('tool_call'), call_id: text, tool: text, input: new Json(2) }),
  tool_result: struct({ ...envelope('tool_result'), call_id: text, ok: bool, output: opt(new Json(2)), error: opt(wireError), meta: opt(new Json(2)) }),
  event: struct({ ...envelope('event'), topic: known(TOPICS), payload: new Json(2), meta: opt(new Json(2)) }),
  error: struct({ ...envelope('error'), error: wireError }),
  // The schema leaves manifest_update open ("type": "object"), so it travels as JSON.
  heartbeat: struct({ ...envelope('heartbeat'), manifest_update: opt(new Json(2)) }),
};
const TAGS = Object.keys(BODIES) as MessageType[];

/** What comes before a call's input or output: all a peek reads (binaryCodec.peekCall). */
const CALL_HEADS: Partial<Record<MessageType, Struct>> = {
  tool_call: struct({ ...envelope('tool_call'), call_id: text }),
  tool_result: struct({ ...envelope('tool_result'), call_id: text }),
};

/** The whole message: its type tag, then that type's fields. */
class MessageSchema extends Counted<unknown> {
  write(out: ISerialOutput, message: unknown): void {
    const type = (message as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !Object.hasOwn(BODIES, type)) {
      throw new Error(`binaryCodec cannot encode a message of type ${JSON.stringify(type)}; known types: ${TAGS.join(', ')}`);
    }
    out.writeUint8(TAGS.indexOf(type as MessageType));
    try {
      BODIES[type as MessageType].write(out, message as Record<string, unknown>);
    } catch (error) {
      throw new Error(`binaryCodec cannot encode this ${type} message: ${(error as Error).message}`);
    }
  }
  read(input: ISerialInput): unknown {
    const tag = input.readUint8();
    const type = TAGS[tag];
    if (type === undefined) throw new Malformed(`unknown message type tag ${tag}`);
    return BODIES[type].read(input);
  }
}
const messageSchema = new MessageSchema();

const malformed = (message: string): Verdict<never> => ({ ok: false, kind: 'malformed_frame', message });
function readProblem(error: unknown): string {
  if (error instanceof Malformed) return error.message;
  if (error instanceof RangeError) return 'frame ends in the middle of a message';
  if (error instanceof TypeError) return 'frame holds a string that is not valid UTF-8';
  return `frame is not a binary aicc message (${(error as Error).message})`;
}

/** Binary frames (Uint8Array, exactly sized); both ends of a link must use it. */
export const binaryCodec: Codec = {
  name: 'binary',
  encode(message) {
    // The measuring run throws for a message that does not fit, before any frame exists.
    const bytes = new Uint8Array(messageSchema.measure(message).size);
    const out = new FrameWriter(bytes);
    messageSchema.write(out, message);
    if (out.currentByteOffset !== bytes.byteLength) throw new Error('binaryCodec: the message changed while it was encoded');
    return bytes;
  },
  decode(frame, limits: InboundLimits) {
    if (typeof frame === 'string') return malformed('a binary link got a text frame');
    if (!(frame instanceof Uint8Array)) return malformed('a binary link got a message object; both ends must use binaryCodec');
    if (frame.byteLength > limits.maxFrameBytes) return oversized(limits);
    let value: unknown;
    try {
      // A view into a larger (pooled) buffer is copied: typed-binary would read past the view's end.
      const exact = frame.byteOffset === 0 && frame.byteLength === frame.buffer.byteLength && frame.buffer instanceof ArrayBuffer;
      const input = new FrameReader(exact ? frame : new Uint8Array(frame), limits.maxDepth);
      value = messageSchema.read(input);
      if (input.remaining > 0) return malformed(`frame has ${input.remaining} bytes after the end of the message`);
    } catch (error) {
      if (error instanceof TooDeep) return { ok: false, kind: 'too_deep', message: `message nests deeper than ${limits.maxDepth} levels` };
      return malformed(readProblem(error));
    }
    return checkStructure(value, limits.maxDepth);
  },
  decodeTrusted(frame) {
    return this.decode(frame, { maxFrameBytes: Infinity, maxDepth: Infinity });
  },
  peekCall(frame): FrameCall | undefined {
    if (!(frame instanceof Uint8Array) || frame.byteLength === 0) return undefined;
    const type = TAGS[frame[0]!];
    const head = type === undefined ? undefined : CALL_HEADS[type];
    if (head === undefined) return undefined;
    try {
      const input = new FrameReader(frame.slice(1, PEEK_CHARS), 0); // a copy: exactly its buffer
      return callOf(head.read(input));
    } catch {
      return undefined; // the head itself is cut short or malformed
    }
  },
};
