// Binary frames for aicc/0.1, described with typed-binary schemas: the same messages as the JSON
// codec in far fewer bytes (ids as 16 raw bytes, enums as one byte, no quoted keys).
//
// Layout, little-endian: a message type byte, then that type's fields in the order of BODIES.
// Strings are a LEB128 header (length * 2, low bit set for UTF-16) and their bytes; an optional
// field is a presence byte and its value; free-form JSON is a tag byte per value. Wire order is
// append-only: new message types, enum values and JSON tags go at the end.

import { BufferReader, BufferWriter, MaxValue, Measurer, ObjectSchema, Schema, bool, dynamicArrayOf, getSystemEndianness } from 'typed-binary';
import type { AnySchema, IMeasurer, ISerialInput, ISerialOutput, Parsed } from 'typed-binary';
import { checkStructure, type InboundLimits, type Verdict } from '../runtime/inbound.js';
import { PROTOCOL, TOPICS, type ErrorCode, type MessageType } from '../runtime/protocol.js';
import { oversized, type Codec } from './codec.js';

/** A frame that breaks the layout: decode turns it into `malformed_frame`. */
class Malformed extends Error {}
class TooDeep extends Error {}
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

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

/** Encodes strings in place: a TextEncoder.encode (and a copy) per string would dominate encoding. */
class FrameWriter extends BufferWriter {
  constructor(private readonly frame: Uint8Array) {
    super(frame.buffer, { endianness: 'little' });
  }
  utf8(s: string, length: number): void {
    if (this.byteOffset + length > this.frame.byteLength) throw new RangeError('binaryCodec wrote past its measured size');
    if (length === s.length && length < 32) for (let i = 0; i < length; i++) this.frame[this.byteOffset + i] = s.charCodeAt(i);
    else utf8Encoder.encodeInto(s, this.frame.subarray(this.byteOffset, this.byteOffset + length));
    this.byteOffset += length;
  }
}

/** Measures by writing nowhere, so sizes come from the code that writes and cannot drift from it. */
class Counter extends FrameWriter {
  constructor() {
    super(new Uint8Array(0));
  }
  override writeBool = () => void (this.byteOffset += 1);
  override writeUint8 = () => void (this.byteOffset += 1);
  override writeUint16 = () => void (this.byteOffset += 2);
  override writeInt32 = () => void (this.byteOffset += 4);
  override writeUint32 = () => void (this.byteOffset += 4);
  override writeFloat32 = () => void (this.byteOffset += 4);
  override utf8 = (_: string, length: number) => void (this.byteOffset += length);
}

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
  utf8(length: number): string {
    const bytes = this.take(length);
    // Short ASCII (keys, ids) decodes faster by hand than through a TextDecoder call.
    let s = '';
    for (let i = 0; i < length && length < 32 && bytes[i]! < 0x80; i++) s += String.fromCharCode(bytes[i]!);
    return s.length === length ? s : utf8.decode(bytes);
  }
}
function fail(what: string): never {
  throw new Error(`binaryCodec schemas ${what} only their own frames`);
}
const frameWriter = (out: ISerialOutput) => (out instanceof FrameWriter ? out : fail('write to'));
const frameReader = (input: ISerialInput) => (input instanceof FrameReader ? input : fail('read from'));

// Building a writer costs more than counting a small message, so one is kept (taken while in use).
let spareCounter: Counter | undefined;

/** typed-binary's Schema, measured by a dry run of `write`. */
abstract class Counted<T> extends Schema<T> {
  measure(v: Parsed<T> | MaxValue, m: IMeasurer = new Measurer()): IMeasurer {
    if (v === MaxValue) return m.unbounded;
    const counter = spareCounter ?? new Counter();
    spareCounter = undefined;
    counter.seekTo(0);
    try {
      this.write(counter, v);
      return m.add(counter.currentByteOffset);
    } finally {
      spareCounter = counter;
    }
  }
}

/** A leaf schema from its two halves; `put` also checks the value, so the measuring run rejects it. */
class Leaf<T> extends Counted<T> {
  constructor(private readonly put: (out: FrameWriter, v: T) => void, private readonly get: (input: FrameReader) => T) {
    super();
  }
  write(out: ISerialOutput, v: Parsed<T>): void {
    this.put(frameWriter(out), v as T);
  }
  read(input: ISerialInput): Parsed<T> {
    return this.get(frameReader(input)) as Parsed<T>;
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

/**
 * Not typed-binary's string, which is NUL-terminated (a "\0" would cut it short) and reads
 * unchecked: length-prefixed, and a string with lone surrogates travels as UTF-16 so it round-trips.
 */
const text = new Leaf<string>(
  (out, s) => {
    const n = utf8Length(s);
    writeLength(out, n < 0 ? s.length * 2 + 1 : n * 2);
    if (n >= 0) out.utf8(s, n);
    else for (let i = 0; i < s.length; i++) out.writeUint16(s.charCodeAt(i));
  },
  (r) => {
    const header = readLength(r);
    if (header % 2 === 0) return r.utf8(header / 2);
    const units = r.take(header - 1);
    let s = '';
    for (let i = 0; i < units.length; i += 2) s += String.fromCharCode(units[i]! | (units[i + 1]! << 8));
    return s;
  },
);

/** typed-binary has no f64 scalar: a shared cell goes out as two u32 words, low word first. */
const cell = new Float64Array(1);
const words = new Uint32Array(cell.buffer);
const [LOW, HIGH] = getSystemEndianness() === 'little' ? [0, 1] : [1, 0];
const f64 = new Leaf<number>(
  (out, v) => {
    if (typeof v !== 'number') throw new Error(`expected a number, got ${describe(v)}`);
    cell[0] = v;
    out.writeUint32(words[LOW]!), out.writeUint32(words[HIGH]!);
  },
  (r) => ((words[LOW] = r.readUint32()), (words[HIGH] = r.readUint32()), cell[0]!),
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
  );

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_BYTES_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const nibble = (code: number) => (code <= 0x39 ? code - 0x30 : code - 0x57); // '0'-'9', 'a'-'f'

/** Tag 1 and 16 bytes for a canonical lowercase UUID; tag 0 and the string for any other id. */
const uuid = new Leaf<string>(
  (out, id) => {
    const raw = typeof id === 'string' && CANONICAL_UUID.test(id);
    out.writeUint8(raw ? 1 : 0);
    if (!raw) text.write(out, id);
    else for (const at of UUID_BYTES_AT) out.writeUint8(nibble(id.charCodeAt(at)) * 16 + nibble(id.charCodeAt(at + 1)));
  },
  (r) => {
    const tag = r.readUint8();
    if (tag === 0) return text.read(r);
    if (tag !== 1) throw new Malformed(`unknown id tag ${tag}`);
    let id = '';
    for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[r.readUint8()]!;
    return id;
  },
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
  );

/** `type`: the leading tag byte carries it; this field only puts it back in its place. */
const constant = (value: string) => new Leaf<string>(() => {}, () => value);

/**
 * typed-binary's object, except that absent optional fields stay absent when read (no key holding
 * undefined), and writing checks the shape and names the field at fault.
 */
class Struct extends ObjectSchema<Record<string, AnySchema>> {
  private readonly fields: Array<[string, AnySchema]>;
  constructor(fields: Record<string, AnySchema>) {
    super(fields);
    this.fields = Object.entries(fields);
  }
  override write(out: ISerialOutput, value: Record<string, unknown>): void {
    if (typeof value !== 'object' || value === null) throw new Error(`expected an object, got ${describe(value)}`);
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(this.properties, key) && value[key] !== undefined) throw new Error(`${key}: is not a field here`);
    }
    for (const [key, schema] of this.fields) {
      try {
        schema.write(out, value[key]);
      } catch (error) {
        throw new Error(`${key}: ${(error as Error).message}`);
      }
    }
  }
  override read(input: ISerialInput): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const [key, schema] of this.fields) {
      const v = schema.read(input);
      if (v !== undefined) result[key] = v;
    }
    return result;
  }
}
const struct = (fields: Record<string, AnySchema>) => new Struct(fields);

const [NULL, FALSE, TRUE, INT32, FLOAT64, STRING, ARRAY, OBJECT, FLOAT32] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
const isInt32 = (v: number) => (v | 0) === v && !Object.is(v, -0);
// Game engines mostly hand out float32 positions already: exact in half the bytes.
const isFloat32 = (v: number) => Math.fround(v) === v || Number.isNaN(v);
// As JSON.stringify does, so both codecs deliver the same value: toJSON applied; undefined,
// functions and symbols dropped from objects and null in arrays.
const toJson = (v: object | null): unknown => (typeof (v as { toJSON?: unknown } | null)?.toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v);
const dropped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
type Container = unknown[] | Record<string, unknown>;

/** Any JSON value; `depth` is where it sits in the message, so reading stops exactly at maxDepth. */
class Json extends Counted<unknown> {
  constructor(private readonly depth: number) {
    super();
  }
  write(out: ISerialOutput, value: unknown): void {
    const v = typeof value === 'object' ? toJson(value) : value;
    if (v === null || typeof v === 'boolean') return out.writeUint8(v === null ? NULL : v ? TRUE : FALSE);
    if (typeof v === 'number') {
      if (isInt32(v)) return out.writeUint8(INT32), out.writeInt32(v);
      return isFloat32(v) ? (out.writeUint8(FLOAT32), out.writeFloat32(v)) : (out.writeUint8(FLOAT64), f64.write(out, v));
    }
    if (typeof v === 'string') return out.writeUint8(STRING), text.write(out, v);
    if (typeof v !== 'object') throw new Error(`cannot encode ${typeof v} as JSON`);
    if (Array.isArray(v)) {
      out.writeUint8(ARRAY), writeLength(out, v.length);
      for (const item of v) this.write(out, dropped(item) ? null : item);
      return;
    }
    const record = v as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => !dropped(record[key]));
    out.writeUint8(OBJECT), writeLength(out, keys.length);
    for (const key of keys) text.write(out, key), this.write(out, record[key]);
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
      else if (tag === FLOAT32) value = r.readFloat32();
      else if (tag === STRING) value = text.read(r);
      else if (tag === ARRAY || tag === OBJECT) {
        if (this.depth + open.length > r.maxDepth) throw new TooDeep();
        count = readLength(r);
        if (count > r.remaining) throw new Malformed(`a count (${count}) points past the end of the frame`);
        value = tag === ARRAY ? [] : {};
      } else throw new Malformed(`unknown JSON value tag ${tag}`);
      if (!parent) root = value;
      else if (Array.isArray(parent.into)) parent.into.push(value);
      else if (key !== '__proto__') parent.into[key] = value;
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
