// Frames a hostile pi peer sends that are not readable records, or are records only just inside
// (or outside) the client's bounds: shared by both pi-client targets, each wrapping them around a
// record that is otherwise a true answer of its protocol.

import fc from 'fast-check';
import type { Frame } from '../../../src/protocol/codec.js';
import type { InboundLimits } from '../../../src/protocol/inbound.js';
import { stringify } from './hostileValues.js';

export type RawFrame =
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  /** Not text at all: a message object on a text link. */
  | { kind: 'object' }
  /** maxFrameBytes + over bytes of UTF-8, padded with `pad`; as bytes or as a string. */
  | { kind: 'big'; over: number; pad: string; quote: boolean; bytes: boolean }
  /** Nested maxDepth + over deep. */
  | { kind: 'deep'; over: number; array: boolean }
  /** A true-looking record cut short. */
  | { kind: 'cut'; at: number };

export const rawFrame: fc.Arbitrary<RawFrame> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.string(),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom(
          '',
          ' ',
          'null',
          'true',
          '0',
          '""',
          '[]',
          '{}',
          '{',
          '}',
          '\uFEFF{}',
          '{"a":1}{"b":2}',
          '{"type":1}',
          '{"type":null}',
          '[{"type":"response"}]',
          'NaN',
          '{"type":"response",}',
          "{'type':'response'}",
          '\u0000',
          '1e400',
          '{"type":"response"}\n{"type":"response"}',
        ),
      )
      .map((text) => ({ kind: 'text' as const, text })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc
          .constantFrom([0x7b, 0xff, 0x7d], [0xef, 0xbb, 0xbf, 0x7b, 0x7d], [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], [0xc0, 0xaf], [0x7b, 0x7d])
          .map((bytes) => new Uint8Array(bytes)),
      )
      .map((bytes) => ({ kind: 'bytes' as const, bytes })),
  },
  fc.constant({ kind: 'object' as const }),
  fc
    .record({ over: fc.integer({ min: -3, max: 3 }), pad: fc.constantFrom('x', 'é', '😀', '\u0000'), quote: fc.boolean(), bytes: fc.boolean() })
    .map((big) => ({ kind: 'big' as const, ...big })),
  fc.record({ over: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant(20_000)), array: fc.boolean() }).map((deep) => ({ kind: 'deep' as const, ...deep })),
  fc.nat().map((at) => ({ kind: 'cut' as const, at })),
);

/** The frame a RawFrame stands for, around `shape(pad)` (a record that is otherwise a true answer). */
export function materialize(frame: RawFrame, limits: InboundLimits, secret: string, shape: (pad: string) => unknown): Frame {
  switch (frame.kind) {
    case 'text':
      return frame.text;
    case 'bytes':
      return frame.bytes;
    case 'object':
      return shape('') as Frame;
    case 'cut': {
      const text = stringify(shape(''));
      return text.slice(0, frame.at % text.length);
    }
    case 'deep': {
      // Written as text: JSON.stringify itself recurses, and would not get 20,000 levels deep.
      const n = Math.max(0, limits.maxDepth + frame.over);
      const deep = frame.array ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      return stringify(shape('')).replace(/}$/, `,"deep":${deep}}`);
    }
    case 'big': {
      const quoted = frame.quote ? secret : '';
      const base = new TextEncoder().encode(stringify(shape(quoted))).byteLength;
      const room = limits.maxFrameBytes + frame.over - base;
      const unit = new TextEncoder().encode(JSON.stringify(frame.pad).slice(1, -1)).byteLength;
      const pad = frame.pad.repeat(Math.max(0, Math.floor(room / unit))) + 'x'.repeat(Math.max(0, room % unit));
      const text = stringify(shape(quoted + pad));
      return frame.bytes ? new TextEncoder().encode(text) : text;
    }
  }
}
