// Free-form JSON in binary frames (tool input and output, event payloads, meta, tool schemas): a tag
// byte per value, read with an explicit stack so hostile depth stops at maxDepth.

import type { ISerialInput, ISerialOutput } from 'typed-binary';
import { Counted, Malformed, TooDeep, f64, frameReader, readLength, text, writeLength } from './primitives.js';

const [NULL, FALSE, TRUE, INT32, FLOAT64, STRING, ARRAY, OBJECT, FLOAT32] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
const isInt32 = (v: number) => (v | 0) === v && !Object.is(v, -0);
// Game engines mostly hand out float32 positions already: exact in half the bytes.
const isFloat32 = (v: number) => Math.fround(v) === v;
// As JSON.stringify does, so both codecs deliver the same value: toJSON applied; undefined,
// functions and symbols dropped from objects and null in arrays.
const toJson = (v: object | null): unknown => (typeof (v as { toJSON?: unknown } | null)?.toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v);
const dropped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
type Container = unknown[] | Record<string, unknown>;

/**
 * A number a JSON text could carry: NaN and ±Infinity are refused (no JSON text holds them, and a
 * handler that trusts its schema's "number" would meet them), -0 is read as 0.
 */
function jsonNumber(v: number): number {
  if (!Number.isFinite(v)) throw new Malformed(`a number that JSON cannot carry (${v})`);
  return v === 0 ? 0 : v;
}

/** Any JSON value; `depth` is where it sits in the message, so reading stops exactly at maxDepth. */
export class Json extends Counted<unknown> {
  constructor(private readonly depth: number) {
    super();
  }
  write(out: ISerialOutput, value: unknown): void {
    const v = typeof value === 'object' ? toJson(value) : value;
    if (v === null || typeof v === 'boolean') return out.writeUint8(v === null ? NULL : v ? TRUE : FALSE);
    if (typeof v === 'number') {
      // As JSON.stringify: NaN and ±Infinity become null, -0 becomes 0.
      if (!Number.isFinite(v)) return out.writeUint8(NULL);
      if (v === 0) return (out.writeUint8(INT32), out.writeInt32(0));
      if (isInt32(v)) return (out.writeUint8(INT32), out.writeInt32(v));
      return isFloat32(v) ? (out.writeUint8(FLOAT32), out.writeFloat32(v)) : (out.writeUint8(FLOAT64), f64.write(out, v));
    }
    if (typeof v === 'string') return (out.writeUint8(STRING), text.write(out, v));
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
      else if (tag === FLOAT64 || tag === FLOAT32) value = jsonNumber(tag === FLOAT64 ? f64.read(r) : r.readFloat32());
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
