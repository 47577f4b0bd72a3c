// Binary frames for aicc/0.1, described with typed-binary schemas: the same messages as the JSON
// codec in far fewer bytes (ids as 16 raw bytes, enums as one byte, no quoted keys).
//
// Layout, little-endian: a message type byte, then that type's fields in the order of BODIES.
// Strings are a LEB128 header (length * 2, low bit set for UTF-16) and their bytes; an optional
// field is a presence byte and its value; free-form JSON is a tag byte per value. Wire order is
// append-only: new message types, enum values and JSON tags go at the end.

import { BufferReader, BufferWriter, MaxValue, Measurer, ObjectSchema, Schema, bool, dynamicArrayOf } from 'typed-binary';
import type { AnySchema, IMeasurer, ISerialInput, ISerialOutput, Parsed } from 'typed-binary';
import { checkStructure, type InboundLimits, type Verdict } from '../runtime/inbound.js';
import { PROTOCOL, TOPICS, type ErrorCode, type MessageType } from '../runtime/protocol.js';
import { oversized, type Codec } from './codec.js';

/** A frame that breaks the layout: decode turns it into `malformed_frame`. */
class Malformed extends Error {}
class TooDeep extends Error {}
/** A message that does not fit the layout, with the path of the field at fault. */
class ShapeError extends Error {
  constructor(readonly path: string, readonly problem: string) {
    super(`${path}: ${problem}`);
  }
}
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/**
 * What the schemas rely on when reading: the frame is exactly its buffer (typed-binary reads
 * relative to the whole ArrayBuffer), lengths are checked before anything is allocated, and JSON
 * nesting has a budget.
 */
class FrameReader extends BufferReader {
  constructor(private readonly frame: Uint8Array, readonly maxDepth: number) {
    super(frame.buffer, { endianness: 'little' });
  }
  get remaining(): number {
    return this.frame.byteLength - this.byteOffset;
  }
  take(length: number): Uint8Array {
    if (length > this.remaining) throw new Malformed(`a length (${length}) points past the end of the frame`);
    this.byteOffset += length;
    return this.frame.subarray(this.byteOffset - length, this.byteOffset);
  }
}
function frameReader(input: ISerialInput): FrameReader {
  if (input instanceof FrameReader) return input;
  throw new Error('binaryCodec schemas read only through their own FrameReader');
}

/** A leaf schema from its three parts. `size` also checks the value: encode measures before it writes. */
class Leaf<T> extends Schema<T> {
  constructor(
    private readonly put: (out: ISerialOutput, v: T) => void,
    private readonly get: (input: FrameReader) => T,
    private readonly size: (v: T) => number,
  ) {
    super();
  }
  write(out: ISerialOutput, v: Parsed<T>): void {
    this.put(out, v as T);
  }
  read(input: ISerialInput): Parsed<T> {
    return this.get(frameReader(input)) as Parsed<T>;
  }
  measure(v: Parsed<T> | MaxValue, m: IMeasurer = new Measurer()): IMeasurer {
    return v === MaxValue ? m.unbounded : m.add(this.size(v as T));
  }
}

// LEB128 lengths: five bytes cover anything a frame can hold; a longer prefix is refused.
function writeLength(out: ISerialOutput, n: number): void {
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.writeUint8((n % 0x80) | 0x80);
  out.writeUint8(n);
}
function readLength(input: ISerialInput): number {
  for (let n = 0, scale = 1, i = 0; i < 5; i++, scale *= 0x80) {
    const byte = input.readUint8();
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) return n;
  }
  throw new Malformed('a length prefix runs past 5 bytes');
}
const lengthSize = (n: number) => (n < 2 ** 7 ? 1 : n < 2 ** 14 ? 2 : n < 2 ** 21 ? 3 : n < 2 ** 28 ? 4 : 5);

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // keep a leading U+FEFF
const utf8Encoder = new TextEncoder();

/** UTF-8 byte length of `s`, or -1 when it holds a lone surrogate (which UTF-8 cannot carry). */
function utf8Length(s: string): number {
  if (typeof s !== 'string') throw new Error(`expected a string, got ${describe(s)}`);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c >= 0xe000) n += 3;
    else if (c < 0xdc00 && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(++i) < 0xe000) n += 4;
    else return -1;
  }
  return n;
}

/**
 * Not typed-binary's string, which is NUL-terminated (a "\0" would cut it short) and reads
 * unchecked: length-prefixed, and a string with lone surrogates travels as UTF-16 so it round-trips.
 */
const text = new Leaf<string>(
  (out, s) => {
    const n = utf8Length(s);
    if (n < 0) {
      writeLength(out, s.length * 2 + 1);
      for (let i = 0; i < s.length; i++) out.writeUint16(s.charCodeAt(i));
    } else {
      writeLength(out, n * 2);
      // Short ASCII (keys, ids) is cheaper byte by byte than through a TextEncoder allocation.
      if (n === s.length && n < 32) for (let i = 0; i < n; i++) out.writeUint8(s.charCodeAt(i));
      else out.writeSlice(utf8Encoder.encode(s));
    }
  },
  (r) => {
    const header = readLength(r);
    if (header % 2 === 0) return utf8.decode(r.take(header / 2));
    const units = r.take(header - 1);
    let s = '';
    for (let i = 0; i < units.length; i += 2) s += String.fromCharCode(units[i]! | (units[i + 1]! << 8));
    return s;
  },
  (s) => {
    const n = utf8Length(s);
    return n < 0 ? lengthSize(s.length * 2 + 1) + s.length * 2 : lengthSize(n * 2) + n;
  },
);

/** typed-binary has f64 arrays but no f64 scalar: one shared cell, moved through its slice I/O. */
const cell = new Float64Array(1);
const f64 = new Leaf<number>(
  (out, v) => ((cell[0] = v), out.writeSlice(cell)),
  (r) => (r.readSlice(cell, 0, 8), cell[0]!),
  (v) => {
    if (typeof v !== 'number') throw new Error(`expected a number, got ${describe(v)}`);
    return 8;
  },
);

/** One byte for a value of a known list; 0 and the string otherwise, so other values still round-trip. */
const known = (values: readonly string[]) =>
  new Leaf<string>(
    (out, v) => {
      const i = values.indexOf(v);
      out.writeUint8(i + 1);
      if (i < 0) text.write(out, v);
    },
    (r) => {
      const tag = r.readUint8();
      const v = tag === 0 ? text.read(r) : values[tag - 1];
      if (v === undefined) throw new Malformed(`unknown tag ${tag} for one of ${values.join(', ')}`);
      return v;
    },
    (v) => (values.includes(v) ? 1 : 1 + text.measure(v).size),
  );

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_BYTES_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Tag 1 and 16 bytes for a canonical lowercase UUID; tag 0 and the string for any other id. */
const uuid = new Leaf<string>(
  (out, id) => {
    const raw = CANONICAL_UUID.test(id);
    out.writeUint8(raw ? 1 : 0);
    if (raw) for (const at of UUID_BYTES_AT) out.writeUint8(parseInt(id.slice(at, at + 2), 16));
    else text.write(out, id);
  },
  (r) => {
    const tag = r.readUint8();
    if (tag === 0) return text.read(r);
    if (tag !== 1) throw new Malformed(`unknown id tag ${tag}`);
    let id = '';
    for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[r.readUint8()]!;
    return id;
  },
  (id) => (typeof id === 'string' && CANONICAL_UUID.test(id) ? 17 : 1 + text.measure(id).size),
);

/** Absent (undefined) and present differ by a byte; unlike typed-binary's optional, null is a present value. */
const opt = (inner: AnySchema) =>
  new Leaf<unknown>(
    (out, v) => {
      out.writeUint8(v === undefined ? 0 : 1);
      if (v !== undefined) inner.write(out, v);
    },
    (r) => {
      const flag = r.readUint8();
      if (flag > 1) throw new Malformed(`presence byte ${flag} is neither 0 nor 1`);
      return flag === 1 ? inner.read(r) : undefined;
    },
    (v) => (v === undefined ? 1 : 1 + inner.measure(v).size),
  );

/** `type`: the leading tag byte carries it; this field only puts it back in its place. */
const constant = (value: string) => new Leaf<string>(() => {}, () => value, () => 0);

/**
 * typed-binary's object, except that absent optional fields stay absent when read (no key holding
 * undefined), and measuring checks the shape, with the path of a field at fault.
 */
class Struct extends ObjectSchema<Record<string, AnySchema>> {
  private readonly fields: Array<[string, AnySchema]>;
  constructor(fields: Record<string, AnySchema>) {
    super(fields);
    this.fields = Object.entries(fields);
  }
  override read(input: ISerialInput): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const [key, schema] of this.fields) {
      const v = schema.read(input);
      if (v !== undefined) result[key] = v;
    }
    return result;
  }
  override measure(value: unknown, m: IMeasurer = new Measurer()): IMeasurer {
    if (value === MaxValue) return m.unbounded;
    if (typeof value !== 'object' || value === null) throw new Error(`expected an object, got ${describe(value)}`);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!Object.hasOwn(this.properties, key) && record[key] !== undefined) throw new ShapeError(key, 'is not a field here');
    }
    for (const [key, schema] of this.fields) {
      try {
        schema.measure(record[key], m);
      } catch (error) {
        throw error instanceof ShapeError ? new ShapeError(`${key}.${error.path}`, error.problem) : new ShapeError(key, (error as Error).message);
      }
    }
    return m;
  }
}
const struct = (fields: Record<string, AnySchema>) => new Struct(fields);

const [NULL, FALSE, TRUE, INT32, FLOAT64, STRING, ARRAY, OBJECT] = [0, 1, 2, 3, 4, 5, 6, 7] as const;
const isInt32 = (v: number) => (v | 0) === v && !Object.is(v, -0);
// As JSON.stringify does, so both codecs carry the same value: toJSON applied, undefined, functions
// and symbols dropped from objects and null in arrays.
const toJson = (v: unknown): unknown => (typeof (v as { toJSON?: unknown } | null)?.toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v);
const dropped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
const keysOf = (o: Record<string, unknown>) => Object.keys(o).filter((k) => !dropped(o[k]));
type Container = unknown[] | Record<string, unknown>;

/** Any JSON value; `depth` is where it sits in the message, so reading stops exactly at maxDepth. */
class Json extends Schema<unknown> {
  constructor(private readonly depth: number) {
    super();
  }
  write(out: ISerialOutput, value: unknown): void {
    const v = toJson(value);
    if (v === null || typeof v === 'boolean') return out.writeUint8(v === null ? NULL : v ? TRUE : FALSE);
    if (typeof v === 'number') return isInt32(v) ? (out.writeUint8(INT32), out.writeInt32(v)) : (out.writeUint8(FLOAT64), f64.write(out, v));
    if (typeof v === 'string') return out.writeUint8(STRING), text.write(out, v);
    if (Array.isArray(v)) {
      out.writeUint8(ARRAY);
      writeLength(out, v.length);
      for (const item of v) this.write(out, dropped(item) ? null : item);
      return;
    }
    const keys = keysOf(v as Record<string, unknown>);
    out.writeUint8(OBJECT);
    writeLength(out, keys.length);
    for (const key of keys) text.write(out, key), this.write(out, (v as Record<string, unknown>)[key]);
  }
  measure(value: unknown, m: IMeasurer = new Measurer()): IMeasurer {
    if (value === MaxValue) return m.unbounded;
    const v = toJson(value);
    m.add(1);
    if (v === null || typeof v === 'boolean') return m;
    if (typeof v === 'number') return m.add(isInt32(v) ? 4 : 8);
    if (typeof v === 'string') return text.measure(v, m);
    if (typeof v !== 'object') throw new Error(`cannot encode ${typeof v} as JSON`);
    if (Array.isArray(v)) {
      for (const item of v) this.measure(dropped(item) ? null : item, m);
      return m.add(lengthSize(v.length));
    }
    const keys = keysOf(v as Record<string, unknown>);
    for (const key of keys) text.measure(key, m), this.measure((v as Record<string, unknown>)[key], m);
    return m.add(lengthSize(keys.length));
  }
  /** Iterative, the open containers on an explicit stack, so a hostile frame cannot nest the call stack. */
  read(input: ISerialInput): unknown {
    const r = frameReader(input);
    const open: Array<{ into: Container; left: number }> = [];
    let root: unknown;
    for (;;) {
      const parent = open[open.length - 1];
      if (parent) parent.left--;
      const key = parent && !Array.isArray(parent.into) ? text.read(r) : '';
      const tag = r.readUint8();
      let value: unknown;
      let count = 0;
      if (tag === NULL || tag === FALSE || tag === TRUE) value = tag === NULL ? null : tag === TRUE;
      else if (tag === INT32) value = r.readInt32();
      else if (tag === FLOAT64) value = f64.read(r);
      else if (tag === STRING) value = text.read(r);
      else if (tag === ARRAY || tag === OBJECT) {
        if (this.depth + open.length > r.maxDepth) throw new TooDeep();
        count = readLength(r);
        if (count > r.remaining) throw new Malformed(`a count (${count}) points past the end of the frame`);
        value = tag === ARRAY ? [] : {};
      } else throw new Malformed(`unknown JSON value tag ${tag}`);
      if (!parent) root = value;
      else if (Array.isArray(parent.into)) parent.into.push(value);
      // Assigning "__proto__" would replace the prototype; defining it only makes a key (refused later).
      else Object.defineProperty(parent.into, key, { value, enumerable: true, writable: true, configurable: true });
      if (count > 0) open.push({ into: value as Container, left: count });
      while (open.length > 0 && open[open.length - 1]!.left === 0) open.pop();
      if (open.length === 0) return root;
    }
  }
}

// Enum lists are in wire order: append only.
const ERROR_CODES: readonly ErrorCode[] = [
  'protocol_mismatch', 'session_expired', 'tool_unknown', 'tool_unavailable', 'invalid_input', 'execution_failed', 'timeout', 'internal_error',
];
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

/** The whole message: its type tag, then that type's fields. */
class MessageSchema extends Schema<unknown> {
  private typeOf(message: unknown): MessageType {
    const type = (message as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && Object.hasOwn(BODIES, type)) return type as MessageType;
    throw new Error(`binaryCodec cannot encode a message of type ${JSON.stringify(type)}; known types: ${TAGS.join(', ')}`);
  }
  write(out: ISerialOutput, message: unknown): void {
    const type = this.typeOf(message);
    out.writeUint8(TAGS.indexOf(type));
    BODIES[type].write(out, message as Record<string, unknown>);
  }
  read(input: ISerialInput): unknown {
    const tag = input.readUint8();
    const type = TAGS[tag];
    if (type === undefined) throw new Malformed(`unknown message type tag ${tag}`);
    return BODIES[type].read(input);
  }
  measure(message: unknown, m: IMeasurer = new Measurer()): IMeasurer {
    const type = this.typeOf(message);
    try {
      return BODIES[type].measure(message, m.add(1));
    } catch (error) {
      throw new Error(`binaryCodec cannot encode this ${type} message: ${(error as Error).message}`);
    }
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
    const bytes = new Uint8Array(messageSchema.measure(message).size);
    messageSchema.write(new BufferWriter(bytes.buffer, { endianness: 'little' }), message);
    return bytes;
  },
  decode(frame, limits: InboundLimits) {
    if (typeof frame === 'string') return malformed('a binary link got a text frame');
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
};
