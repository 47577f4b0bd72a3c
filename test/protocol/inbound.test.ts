import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INBOUND_LIMITS,
  PEEK_CHARS,
  callOf,
  checkOutbound,
  checkStructure,
  parseJsonFrame,
  peekJsonCall,
  utf8Exceeds,
} from '../../src/protocol/inbound.js';

describe('utf8Exceeds', () => {
  it.each([
    ['ASCII (1 byte each)', 'a'.repeat(10), 10],
    ['2-byte characters', 'é'.repeat(5), 10],
    ['3-byte characters', '€'.repeat(4), 12],
    ['4-byte emoji (surrogate pairs)', '😀'.repeat(3), 12],
    ['one of each width', 'aé€😀', 10],
    ['the last 1-byte, first 2-byte characters', '\u007f\u0080', 3],
    ['the last 2-byte, first 3-byte characters', '\u07ff\u0800', 5],
    ['3-byte characters around the surrogate range', '\ud7ff\ue000\uffff', 9],
    ['the first and last astral characters', '\u{10000}\u{10ffff}', 8],
  ])('%s: false at exactly the UTF-8 length, true one byte below', (_name, text, bytes) => {
    expect(Buffer.byteLength(text, 'utf8')).toBe(bytes);
    expect(utf8Exceeds(text, bytes)).toBe(false);
    expect(utf8Exceeds(text, bytes - 1)).toBe(true);
  });

  it('is false for the empty string at 0, true for one character at 0', () => {
    expect(utf8Exceeds('', 0)).toBe(false);
    expect(utf8Exceeds('a', 0)).toBe(true);
  });

  it('is false for 3-byte text well under the limit', () => {
    expect(utf8Exceeds('€'.repeat(4), 100)).toBe(false);
  });

  it('counts an emoji inside ASCII as 4 bytes', () => {
    const text = `${'a'.repeat(100)}😀${'b'.repeat(100)}`;
    expect(utf8Exceeds(text, 204)).toBe(false);
    expect(utf8Exceeds(text, 203)).toBe(true);
  });

  it('agrees with Buffer.byteLength at and around the exact length of any well-formed string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.integer({ min: -3, max: 3 }), (text, delta) => {
        const bytes = Buffer.byteLength(text, 'utf8');
        const max = Math.max(0, bytes + delta);
        expect(utf8Exceeds(text, max)).toBe(bytes > max);
      }),
      { numRuns: 2000 },
    );
  });
});

/** An array nested `depth` levels deep: depth 1 is `[]`. */
function nestedArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** An object nested `depth` levels deep, with a primitive at the bottom: depth 1 is `{ v: 1 }`. */
function nestedObject(depth: number): unknown {
  let value: unknown = { v: 1 };
  for (let i = 1; i < depth; i++) value = { inner: value };
  return value;
}

describe('checkStructure', () => {
  it('uses 256 KiB frames and depth 32 by default', () => {
    expect(DEFAULT_INBOUND_LIMITS).toEqual({ maxFrameBytes: 262_144, maxDepth: 32 });
  });

  it('accepts primitives and hands back the same value', () => {
    for (const value of [null, 1, 'x', true]) expect(checkStructure(value, 1)).toEqual({ ok: true, value });
    const object = { a: 1 };
    const verdict = checkStructure(object, 4);
    expect(verdict.ok && verdict.value).toBe(object);
  });

  it('accepts nesting of exactly maxDepth levels', () => {
    expect(checkStructure(nestedArray(5), 5).ok).toBe(true);
    expect(checkStructure(nestedObject(5), 5).ok).toBe(true);
  });

  it("refuses nesting of maxDepth + 1 levels as 'too_deep'", () => {
    const refusal = { ok: false, kind: 'too_deep', message: 'message nests deeper than 5 levels' };
    expect(checkStructure(nestedArray(6), 5)).toEqual(refusal);
    expect(checkStructure(nestedObject(6), 5)).toEqual(refusal);
  });

  it('counts only objects and arrays as levels, not the primitives inside them', () => {
    expect(checkStructure({ a: { b: { c: 'deep string' } } }, 3).ok).toBe(true);
    expect(checkStructure({ a: { b: { c: [] } } }, 3).ok).toBe(false);
  });

  it('counts mixed objects and arrays alike', () => {
    const value = { list: [{ items: [[1]] }] }; // object, array, object, array, array: 5 levels
    expect(checkStructure(value, 5).ok).toBe(true);
    expect(checkStructure(value, 4)).toMatchObject({ ok: false, kind: 'too_deep' });
  });

  it('finds the deep branch among shallow siblings', () => {
    const value = { a: 1, b: [], c: { d: nestedArray(10) }, e: 'x' };
    expect(checkStructure(value, 12).ok).toBe(true);
    expect(checkStructure(value, 11)).toMatchObject({ ok: false, kind: 'too_deep' });
  });

  it('refuses a 100,000-deep array without throwing (it walks iteratively)', () => {
    const deep = nestedArray(100_000);
    expect(() => checkStructure(deep, 32)).not.toThrow();
    expect(checkStructure(deep, 32)).toMatchObject({ ok: false, kind: 'too_deep' });
  });

  it('walks all of a 100,000-deep array without throwing when the limit allows it', () => {
    expect(checkStructure(nestedArray(100_000), 100_000).ok).toBe(true);
  });

  it("refuses a top-level __proto__ key (as JSON.parse makes it) as 'forbidden_key'", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}}');
    expect(checkStructure(value, 32)).toEqual({ ok: false, kind: 'forbidden_key', message: 'message contains a "__proto__" key' });
  });

  it('refuses a __proto__ key at any depth, whatever it holds', () => {
    for (const text of ['{"a": {"b": {"__proto__": {}}}}', '{"list": [1, [{"__proto__": 1}]]}', '[[[{"x": {"__proto__": null}}]]]']) {
      expect(checkStructure(JSON.parse(text), 32)).toMatchObject({ ok: false, kind: 'forbidden_key' });
    }
  });

  it('refuses a constructor key holding a prototype', () => {
    const verdict = checkStructure(JSON.parse('{"input": {"constructor": {"prototype": {"isAdmin": true}}}}'), 32);
    expect(verdict).toEqual({ ok: false, kind: 'forbidden_key', message: 'message contains a "constructor.prototype" key' });
  });

  it('refuses constructor.prototype whatever the prototype holds', () => {
    expect(checkStructure(JSON.parse('{"constructor": {"prototype": 1}}'), 32)).toMatchObject({ ok: false, kind: 'forbidden_key' });
  });

  it('allows a plain constructor field that is a string', () => {
    const value = JSON.parse('{"constructor": "x", "payload": {"constructor": "Vector3"}}');
    expect(checkStructure(value, 32)).toEqual({ ok: true, value });
  });

  it('allows a constructor object without a prototype key, and a prototype key elsewhere', () => {
    expect(checkStructure(JSON.parse('{"constructor": {"name": "Car"}}'), 32).ok).toBe(true);
    expect(checkStructure(JSON.parse('{"prototype": {"a": 1}}'), 32).ok).toBe(true);
  });

  it('allows keys that only look like __proto__', () => {
    expect(checkStructure(JSON.parse('{"__proto": 1, "proto__": 2, "__PROTO__": 3, "_proto_": 4}'), 32).ok).toBe(true);
  });
});

describe('checkOutbound: what the other end’s first gate would refuse, found before sending', () => {
  it('refuses exactly what parseJsonFrame refuses of the frame, by size, depth and key (property)', () => {
    const keys = fc.constantFrom('a', 'é', '__proto__', 'constructor', 'prototype', '😀');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\'), maxLength: 30 }),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.array(fc.tuple(keys, tie('node')), { maxLength: 3 }).map((entries) => {
          const out: Record<string, unknown> = {};
          for (const [key, item] of entries) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
          return out;
        }),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.dictionary(keys, value, { maxKeys: 3 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 2, max: 300 }),
        (message, maxDepth, maxFrameBytes) => {
          const frame = JSON.stringify(message);
          const limits = { maxFrameBytes, maxDepth };
          const parsed = parseJsonFrame(frame, limits, { what: 'frame', notText: '' });
          const checked = checkOutbound(frame, message, limits);
          expect(checked).toEqual(parsed.ok ? undefined : parsed);
          expect(checkOutbound(new TextEncoder().encode(frame), message, limits)).toEqual(checked);
        },
      ),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('has no size bound for an object frame (objectCodec): only its depth and keys', () => {
    const message = { text: 'x'.repeat(1000) };
    expect(checkOutbound(message, message, { maxFrameBytes: 10, maxDepth: 1 })).toBeUndefined();
    expect(checkOutbound(message, { deep: {} }, { maxFrameBytes: 10, maxDepth: 1 })).toMatchObject({ kind: 'too_deep' });
  });
});

describe('peekJsonCall: the call a refused JSON frame is about, from its top level', () => {
  const head = '{"protocol":"aicc/0.1","type":"tool_call","session_id":"s1","message_id":"m1","call_id":"c1"';
  const call = { type: 'tool_call', callId: 'c1', sessionId: 's1' };

  it('reads the call of a frame too large, too deep, hostile or cut short, as text or UTF-8 bytes', () => {
    const frames = [
      `${head},"tool":"say","input":{"text":"${'x'.repeat(300_000)}"}}`,
      `${head},"tool":"say","input":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      `${head},"tool":"say","input":{"__proto__":{"polluted":true}}}`,
      `${head},"tool":"say","input":{"text":"cut sh`,
      head,
    ];
    for (const frame of frames) {
      expect(peekJsonCall(frame)).toEqual(call);
      expect(peekJsonCall(new TextEncoder().encode(frame))).toEqual(call);
    }
  });

  it('skips nested values unread, however their strings hold brackets and quotes', () => {
    const frame = ' {"input" : {"s":"}{\\"]","call_id":"inner","a":[1,{"b":"]"}],"n":null} , "ok":true,"type" :"tool_result", "call_id":"c\\u00e9\\"2"}';
    expect(peekJsonCall(frame)).toEqual({ type: 'tool_result', callId: 'cé"2' });
  });

  it('finds no call where none can be answered', () => {
    const frames = [
      `{"input":{"text":"${'x'.repeat(5000)}"},"type":"tool_call","call_id":"c1"}`, // past the first PEEK_CHARS
      '{"type":"tool_call","input":{"call_id":"nested"}}',
      '{"protocol":"aicc/9.9","type":"tool_call","call_id":"c1"}',
      '{"protocol":"aicc/0.1","type":"tool_call","call_id":""}',
      '{"protocol":"aicc/0.1","type":"heartbeat","call_id":"c1"}',
      '{"protocol":"aicc/0.1","type":"tool_call","call_id":5}',
      '[{"protocol":"aicc/0.1","type":"tool_call","call_id":"c1"}]',
      'not json "call_id":"c1"',
      '',
    ];
    expect(PEEK_CHARS).toBe(4096);
    for (const frame of frames) expect(peekJsonCall(frame)).toBeUndefined();
    expect(peekJsonCall({ type: 'tool_call', call_id: 'c1' })).toBeUndefined(); // not text
  });

  it('never throws, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', ' ', 'a', '1') })), (text) => {
        const peeked = peekJsonCall(text);
        if (peeked !== undefined) expect(peeked.callId.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000, seed: 12 },
    );
  });
});

describe('callOf: the call a decoded value is about', () => {
  it('reads own data properties of the top level only', () => {
    expect(callOf({ protocol: 'aicc/0.1', type: 'tool_call', call_id: 'c1', session_id: 's' })).toEqual({ type: 'tool_call', callId: 'c1', sessionId: 's' });
    expect(callOf(Object.create({ type: 'tool_call', call_id: 'c1' }))).toBeUndefined();
    const getter = { type: 'tool_call' };
    Object.defineProperty(getter, 'call_id', { get: () => 'c1', enumerable: true });
    expect(callOf(getter)).toBeUndefined();
    expect(
      callOf(
        new Proxy(
          {},
          {
            getOwnPropertyDescriptor: () => {
              throw new Error('no');
            },
          },
        ),
      ),
    ).toBeUndefined();
    for (const value of [null, 'tool_call', [{ type: 'tool_call', call_id: 'c1' }]]) expect(callOf(value)).toBeUndefined();
  });
});
