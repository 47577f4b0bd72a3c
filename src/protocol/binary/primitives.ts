// The building blocks of the binary codec: a bounds-checked reader and writer over one exact-size
// buffer, and the leaf schemas typed-binary lacks or gets wrong for this protocol (length-prefixed
// strings, f64, enums with a fallback, UUIDs, optionals that keep null, structs that keep absence).

import { BufferReader, BufferWriter, MaxValue, Measurer, ObjectSchema, Schema, getSystemEndianness } from 'typed-binary';
import type { AnySchema, IMeasurer, ISerialInput, ISerialOutput, Parsed } from 'typed-binary';
/** A frame that breaks the layout: decode turns it into `malformed_frame`. */
export class Malformed extends Error {}
export class TooDeep extends Error {}
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
export class FrameWriter extends BufferWriter {
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
export class FrameReader extends BufferReader {
  constructor(
    private readonly frame: Uint8Array,
    readonly maxDepth: number,
  ) {
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
export const frameReader = (input: ISerialInput) => (input instanceof FrameReader ? input : fail('read from'));

// Building a writer costs more than counting a small message, so one is kept (taken while in use).
let spareCounter: Counter | undefined;

/** typed-binary's Schema, measured by a dry run of `write`. */
export abstract class Counted<T> extends Schema<T> {
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
  constructor(
    private readonly put: (out: FrameWriter, v: T) => void,
    private readonly get: (input: FrameReader) => T,
  ) {
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
export function writeLength(out: ISerialOutput, n: number): void {
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.writeUint8((n % 0x80) | 0x80);
  out.writeUint8(n);
}
export function readLength(input: ISerialInput): number {
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
export const text = new Leaf<string>(
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
export const f64 = new Leaf<number>(
  (out, v) => {
    if (typeof v !== 'number') throw new Error(`expected a number, got ${describe(v)}`);
    cell[0] = v;
    out.writeUint32(words[LOW]!), out.writeUint32(words[HIGH]!);
  },
  (r) => ((words[LOW] = r.readUint32()), (words[HIGH] = r.readUint32()), cell[0]!),
);

/** One byte for a value of a known list; 0 and the string otherwise, so other values still round-trip. */
export const known = (values: readonly string[]) =>
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
export const uuid = new Leaf<string>(
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
export const opt = (inner: AnySchema) =>
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
export const constant = (value: string) =>
  new Leaf<string>(
    () => {},
    () => value,
  );

/**
 * typed-binary's object, except that absent optional fields stay absent when read (no key holding
 * undefined), and writing checks the shape and names the field at fault.
 */
export class Struct extends ObjectSchema<Record<string, AnySchema>> {
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
export const struct = (fields: Record<string, AnySchema>) => new Struct(fields);
