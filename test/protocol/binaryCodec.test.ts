import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binaryCodec } from '../../src/protocol/binaryCodec.js';
import { jsonCodec } from '../../src/protocol/codec.js';
import { DEFAULT_INBOUND_LIMITS, checkStructure, type InboundLimits } from '../../src/protocol/inbound.js';
import { NIL_UUID, TOPICS, type AiccMessage, type Manifest, type MessageType, type ToolCall } from '../../src/protocol/messages.js';

const LIMITS = DEFAULT_INBOUND_LIMITS;
const LOOSE: InboundLimits = { maxFrameBytes: 64 * 1024 * 1024, maxDepth: 10_000 };
const SESSION = '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e';
const MESSAGE = '0a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d';

function envelope<T extends MessageType>(type: T) {
  return { protocol: 'aicc/0.1' as const, type, session_id: SESSION, message_id: MESSAGE };
}

const manifest: Manifest = {
  tick_rate_hz: 12.5,
  tick_mode: 'hybrid',
  world: { name: 'Forêt 森 🌲', kind: '2d' },
  capabilities: { sensors: ['vision'], actuators: ['locomotion', 'speech'], generators: [] },
  tools: [
    {
      id: 'move_to',
      class: 'actuator',
      description: 'Walk to a point; stops at walls',
      input_schema: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number', minimum: -1000 } },
        required: ['x', 'y'],
        additionalProperties: false,
      },
      output_schema: { type: 'object', properties: { arrived: { type: 'boolean' } } },
      limits: { calls_per_minute: 60, calls_per_session: 1000 },
      requires_capability: 'locomotion',
      strict_input: true,
    },
    { id: 'look', class: 'sensor', description: 'What is in view', input_schema: {}, output_schema: { type: 'object' } },
    { id: 'say', class: 'generator', description: '説明 💬', input_schema: { type: 'object' }, output_schema: {}, limits: {}, strict_input: false },
  ],
  agent_model: { class: 'cloud_medium', expected_first_token_ms: 350, expected_full_response_ms: 2000 },
  event_subscriptions: ['tick', 'collision'],
};

const typicalCall: ToolCall = {
  ...envelope('tool_call'),
  call_id: 'c-17',
  tool: 'move_to',
  input: { x: 12.5, y: -3, run: true, target: 'door_3' },
};

/** One or more hand-written examples of every message type. */
const EXAMPLES: Record<string, AiccMessage> = {
  session_init: { ...envelope('session_init'), ...manifest },
  'session_init, minimal': {
    ...envelope('session_init'),
    tick_rate_hz: 30,
    tick_mode: 'fixed',
    world: { name: 'w', kind: 'text' },
    capabilities: { sensors: [], actuators: [], generators: [] },
    tools: [],
    agent_model: { class: 'edge_small' },
  },
  session_resume: envelope('session_resume'),
  'session_close with reason': { ...envelope('session_close'), reason: '再见 👋 done' },
  'session_close without reason': envelope('session_close'),
  manifest_request: envelope('manifest_request'),
  tool_call: {
    ...envelope('tool_call'),
    call_id: '!immediate-1',
    tool: 'move_to',
    input: {
      int: 7,
      negative: -42,
      float: Math.PI,
      negativeFloat: -0.5,
      maxSafe: 2 ** 53 - 1,
      minSafe: -(2 ** 53 - 1),
      big: 1e300,
      tiny: 5e-324,
      int32Edges: [2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1],
      text: 'héllo 世界 🎮👾',
      empty: '',
      nothing: null,
      flags: [true, false],
      nested: { a: [[], {}, [1, [2, [3]]]], b: { c: { d: 'deep' } } },
      'key with spaces and 🔑': 1,
      constructor: 'only a string, allowed',
    },
  },
  'tool_result ok': {
    ...envelope('tool_result'),
    call_id: 'c-17',
    ok: true,
    output: { arrived: true, position: [12.5, -3] },
    meta: { tick: 42, latency_ms: 3, source: 'physics', extra: { any: ['thing'] } },
  },
  'tool_result failed': {
    ...envelope('tool_result'),
    call_id: 'c-18',
    ok: false,
    error: { code: 'execution_failed', message: 'path blocked', retryable: false },
  },
  error: { ...envelope('error'), session_id: NIL_UUID, error: { code: 'protocol_mismatch', message: 'expected aicc/0.1', retryable: false } },
  heartbeat: envelope('heartbeat'),
  'heartbeat with manifest_update': {
    ...envelope('heartbeat'),
    manifest_update: { protocol: 'aicc/0.1', type: 'session_init', ...manifest, event_subscriptions: [] },
  },
};
for (const topic of TOPICS) {
  EXAMPLES[`event ${topic}`] = {
    ...envelope('event'),
    topic,
    payload: { topic, at: [1.5, 2, -3], who: 'npc_7' },
    ...(topic === 'collision' ? { meta: { tick: 9001 } } : {}),
  };
}

const roundTrip = (message: unknown, limits = LIMITS) => binaryCodec.decode(binaryCodec.encode(message as AiccMessage), limits);
const frameOf = (message: unknown) => binaryCodec.encode(message as AiccMessage) as Uint8Array;
const bytes = (...parts: Array<Uint8Array | number[]>) => Uint8Array.from(parts.flatMap((part) => [...part]));

describe('binaryCodec round trip', () => {
  it('is named binary', () => {
    expect(binaryCodec.name).toBe('binary');
  });

  it.each(Object.entries(EXAMPLES))('%s', (_, message) => {
    expect(roundTrip(message)).toStrictEqual({ ok: true, value: message });
  });

  it('covers every message type', () => {
    const types = new Set(Object.values(EXAMPLES).map((message) => message.type));
    expect([...types].sort()).toStrictEqual(
      ['session_init', 'session_resume', 'session_close', 'manifest_request', 'tool_call', 'tool_result', 'event', 'error', 'heartbeat'].sort(),
    );
  });

  it('keeps ids, enums and strings beyond the canonical forms exactly', () => {
    const odd = [
      { ...envelope('session_resume'), session_id: SESSION.toUpperCase(), message_id: 'not-a-uuid' },
      { ...envelope('session_resume'), session_id: '', message_id: `${SESSION}-extra` },
      { ...envelope('heartbeat'), protocol: 'aicc/0.2' },
      { ...envelope('event'), topic: 'weather', payload: {} },
      { ...envelope('error'), error: { code: 'teapot', message: 'x', retryable: true } },
      { ...envelope('session_init'), ...manifest, tick_mode: 'lockstep', world: { name: 'w', kind: '4d' } },
      { ...envelope('session_close'), reason: 'nul \0 inside, \uFEFF BOM, lone \uD800 and \uDC00 surrogates, pair 😀' },
      { ...envelope('session_close'), reason: '\uFEFFstarts with a BOM' },
      { ...typicalCall, input: { '\0': '\uDFFF', [`k${'é'.repeat(300)}`]: 'x'.repeat(70_000) } },
      { ...envelope('tool_result'), call_id: 'c', ok: false, output: null },
    ];
    for (const message of odd) expect(roundTrip(message)).toStrictEqual({ ok: true, value: message });
  });

  it('drops what JSON drops, so both codecs deliver the same value', () => {
    const message = {
      ...typicalCall,
      input: { gone: undefined, fn: () => 1, kept: [undefined, () => 1, 1], at: new Date(0), nested: { toJSON: () => 'swapped' } },
    };
    const viaJson = jsonCodec.decode(jsonCodec.encode(message as AiccMessage), LIMITS);
    expect(viaJson.ok).toBe(true);
    expect(roundTrip(message)).toStrictEqual(viaJson);
  });

  it('sends numbers as JSON does: NaN and ±Infinity as null, -0 as 0; float32 values in 4 bytes', () => {
    const message = { ...typicalCall, input: { nan: NaN, inf: Infinity, ninf: -Infinity, zero: -0, list: [NaN, -0], f32: Math.fround(0.1), f64: 0.1 } };
    const viaJson = jsonCodec.decode(jsonCodec.encode(message as AiccMessage), LIMITS);
    expect(roundTrip(message)).toStrictEqual(viaJson);
    expect(roundTrip(message)).toStrictEqual({
      ok: true,
      value: { ...typicalCall, input: { nan: null, inf: null, ninf: null, zero: 0, list: [null, 0], f32: Math.fround(0.1), f64: 0.1 } },
    });
    const size = (x: number) => frameOf({ ...typicalCall, input: { x } }).byteLength;
    expect(size(0.1) - size(Math.fround(0.1))).toBe(4);
  });

  it('refuses a frame whose JSON holds NaN or ±Infinity, and reads -0 as 0: a handler meets only what JSON can carry', () => {
    const frameWith = (x: number, bits: number) => {
      const frame = frameOf({ ...typicalCall, input: { x } });
      const pattern = bits === 64 ? new Uint8Array(new Float64Array([x]).buffer) : new Uint8Array(new Float32Array([x]).buffer);
      const at = Buffer.from(frame).indexOf(Buffer.from(pattern));
      expect(at).toBeGreaterThan(0);
      return (bad: number) => {
        const patched = new Uint8Array(frame);
        patched.set(new Uint8Array(bits === 64 ? new Float64Array([bad]).buffer : new Float32Array([bad]).buffer), at);
        return binaryCodec.decode(patched, LIMITS);
      };
    };
    for (const [x, bits] of [
      [0.1, 64],
      [Math.fround(0.3), 32],
    ] as const) {
      const patch = frameWith(x, bits);
      for (const bad of [NaN, Infinity, -Infinity])
        expect(patch(bad)).toMatchObject({ ok: false, kind: 'malformed_frame', message: `a number that JSON cannot carry (${bad})` });
      const zero = patch(-0);
      expect(zero.ok && Object.is((zero.value as { input: { x: number } }).input.x, 0)).toBe(true);
    }
  });

  it('measures right when a toJSON encodes a message itself, and throws when it answers differently', () => {
    const nested = { toJSON: () => frameOf(typicalCall).byteLength };
    const expected = { ...typicalCall, input: { nested: frameOf(typicalCall).byteLength } };
    expect(roundTrip({ ...typicalCall, input: { nested } })).toStrictEqual({ ok: true, value: expected });
    let calls = 0;
    const growing = { toJSON: () => 'x'.repeat(++calls) };
    expect(() => frameOf({ ...typicalCall, input: { growing } })).toThrow(/input/);
    calls = 0;
    const shrinking = { toJSON: () => 'x'.repeat(3 - ++calls) };
    expect(() => frameOf({ ...typicalCall, input: { shrinking } })).toThrow(/changed while it was encoded/);
  });

  it('encodes into an exactly sized Uint8Array', () => {
    for (const message of Object.values(EXAMPLES)) {
      const frame = frameOf(message);
      expect(Object.getPrototypeOf(frame)).toBe(Uint8Array.prototype);
      expect(frame.byteOffset).toBe(0);
      expect(frame.buffer.byteLength).toBe(frame.byteLength);
    }
  });

  it('makes a typical tool_call smaller than its JSON frame', () => {
    const binary = frameOf(typicalCall).byteLength;
    const json = new TextEncoder().encode(jsonCodec.encode(typicalCall) as string).byteLength;
    expect(binary).toBeLessThan(json / 2);
  });

  it('decodes a frame that is a view into a larger, reused buffer', () => {
    const frame = frameOf(typicalCall);
    const pool = new Uint8Array(frame.byteLength + 64).fill(0xee);
    pool.set(frame, 32);
    expect(binaryCodec.decode(pool.subarray(32, 32 + frame.byteLength), LIMITS)).toStrictEqual({ ok: true, value: typicalCall });
    expect(binaryCodec.decode(Buffer.from(frame), LIMITS)).toStrictEqual({ ok: true, value: typicalCall });
  });

  const dictionary = (stringUnit?: 'binary') =>
    fc.dictionary(fc.string({ unit: stringUnit ?? 'grapheme' }), fc.jsonValue(stringUnit ? { stringUnit } : {}), { noNullPrototype: true });

  for (const unit of [undefined, 'binary'] as const) {
    it(`round-trips arbitrary JSON in tool_call input and event payload (${unit ?? 'unicode'} strings)`, () => {
      fc.assert(
        fc.property(dictionary(unit), fc.jsonValue(unit ? { stringUnit: unit } : {}), fc.constantFrom(...TOPICS), (object, value, topic) => {
          const call = { ...typicalCall, input: { ...object, value } };
          const event = { ...envelope('event'), topic, payload: object, meta: { value } };
          fc.pre(checkStructure(call, LOOSE.maxDepth).ok && checkStructure(event, LOOSE.maxDepth).ok);
          // What the JSON codec would deliver (fc.jsonValue makes -0, which JSON sends as 0).
          expect(roundTrip(call, LOOSE)).toStrictEqual({ ok: true, value: JSON.parse(JSON.stringify(call)) });
          expect(roundTrip(event, LOOSE)).toStrictEqual({ ok: true, value: JSON.parse(JSON.stringify(event)) });
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('binaryCodec refusals', () => {
  const kindOf = (frame: string | Uint8Array, limits = LIMITS) => {
    const verdict = binaryCodec.decode(frame, limits);
    return verdict.ok ? 'ok' : verdict.kind;
  };
  const refusal = (frame: Uint8Array, limits = LIMITS) => {
    const verdict = binaryCodec.decode(frame, limits);
    if (verdict.ok) throw new Error('expected a refusal');
    return verdict;
  };

  it('refuses a text frame', () => {
    expect(kindOf('hello')).toBe('malformed_frame');
    expect(kindOf(jsonCodec.encode(typicalCall) as string)).toBe('malformed_frame');
  });

  it('refuses an oversized frame before decoding it', () => {
    const frame = frameOf(typicalCall);
    expect(kindOf(frame, { ...LIMITS, maxFrameBytes: frame.byteLength })).toBe('ok');
    expect(kindOf(frame, { ...LIMITS, maxFrameBytes: frame.byteLength - 1 })).toBe('oversized_frame');
    expect(kindOf(new Uint8Array(101).fill(0xff), { ...LIMITS, maxFrameBytes: 100 })).toBe('oversized_frame');
  });

  it('refuses every truncation of a valid frame', () => {
    for (const message of Object.values(EXAMPLES)) {
      const frame = frameOf(message);
      for (let length = 0; length < frame.byteLength; length++) expect(kindOf(frame.slice(0, length))).toBe('malformed_frame');
    }
  });

  it('refuses trailing garbage', () => {
    expect(refusal(bytes(frameOf(typicalCall), [0])).message).toMatch(/1 bytes after the end/);
  });

  it('refuses an unknown message type tag', () => {
    expect(refusal(bytes([9], frameOf(typicalCall).subarray(1))).message).toMatch(/message type tag 9/);
    expect(kindOf(new Uint8Array([0xff]))).toBe('malformed_frame');
  });

  it('refuses unknown tags for ids, enums, presence and JSON values', () => {
    const event = frameOf({ ...envelope('event'), topic: 'tick', payload: {} });
    event[36] = 77; // type, protocol, two 17-byte ids, then the topic
    expect(refusal(event).message).toMatch(/unknown tag 77/);

    const id = frameOf(typicalCall);
    id[2] = 5;
    expect(refusal(id).message).toMatch(/id tag 5/);

    const close = frameOf(envelope('session_close'));
    close[close.byteLength - 1] = 2;
    expect(refusal(close).message).toMatch(/presence byte 2/);

    const call = frameOf({ ...typicalCall, input: { k: null } });
    call[call.byteLength - 1] = 99;
    expect(refusal(call).message).toMatch(/JSON value tag 99/);
  });

  it('refuses lengths and counts that point past the end', () => {
    const close = frameOf({ ...envelope('session_close'), reason: 'bye' });
    const withLength = (...header: number[]) => bytes(close.subarray(0, close.byteLength - 4), header, [0x62, 0x79, 0x65]);
    expect(kindOf(withLength(6))).toBe('ok');
    expect(refusal(withLength(0x7e)).message).toMatch(/past the end/);
    expect(refusal(withLength(0xff, 0xff, 0xff, 0xff, 0x0f)).message).toMatch(/past the end/);
    expect(refusal(withLength(0xff, 0xff, 0xff, 0xff, 0xff, 0x01)).message).toMatch(/past 5 bytes/);

    const call = frameOf({ ...typicalCall, input: {} });
    expect(refusal(bytes(call.subarray(0, -1), [0xff, 0xff, 0xff, 0x7f])).message).toMatch(/count \(268435455\) points past the end/);
  });

  it('refuses a string that is not UTF-8', () => {
    const close = frameOf({ ...envelope('session_close'), reason: 'abc' });
    close.set([0xff, 0xfe, 0xfd], close.byteLength - 3);
    expect(refusal(close).message).toMatch(/UTF-8/);
  });

  it('refuses nesting deeper than maxDepth, at the same depth as the JSON codec', () => {
    // The message is level 1 and input level 2, so `levels` arrays inside input reach 2 + levels.
    const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : [nested(levels - 1)]);
    for (const depth of [31, 32, 33, 40]) {
      const call = { ...typicalCall, input: { a: nested(depth - 2) } };
      const expected = depth <= 32 ? 'ok' : 'too_deep';
      expect(kindOf(frameOf(call))).toBe(expected);
      const viaJson = jsonCodec.decode(jsonCodec.encode(call as AiccMessage), LIMITS);
      expect(viaJson.ok ? 'ok' : viaJson.kind).toBe(expected);
    }
    // Tool schemas sit at level 4 (message > tools > tool > schema).
    const init = (levels: number) => ({ ...EXAMPLES.session_init, tools: [{ ...manifest.tools[1]!, input_schema: { a: nested(levels) } }] });
    expect(kindOf(frameOf(init(28)))).toBe('ok');
    expect(kindOf(frameOf(init(29)))).toBe('too_deep');
    expect(kindOf(frameOf({ ...envelope('heartbeat'), manifest_update: { a: nested(31) } }))).toBe('too_deep');
  });

  it('stops at the depth limit of a hostile frame instead of recursing', () => {
    const call = frameOf({ ...typicalCall, input: { a: [] } }); // ends with ARRAY tag, count 0
    const hostile = bytes(call.subarray(0, -1), new Array(200_000).fill([1, 6]).flat(), [0]);
    expect(kindOf(hostile, { maxFrameBytes: 1e6, maxDepth: 32 })).toBe('too_deep');
    expect(kindOf(hostile, { maxFrameBytes: 1e6, maxDepth: 1e6 })).toBe('ok');
  });

  it('refuses __proto__ keys without letting them touch a prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(kindOf(frameOf({ ...typicalCall, input: hostile }))).toBe('forbidden_key');
    expect(kindOf(frameOf({ ...envelope('event'), topic: 'tick', payload: { deep: [hostile] } }))).toBe('forbidden_key');
    expect(kindOf(frameOf({ ...envelope('tool_result'), call_id: 'c', ok: true, meta: hostile }))).toBe('forbidden_key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses constructor.prototype', () => {
    const input = { constructor: { prototype: { polluted: true } } };
    expect(kindOf(frameOf({ ...typicalCall, input }))).toBe('forbidden_key');
    expect(kindOf(frameOf({ ...typicalCall, input: { constructor: { name: 'fine' } } }))).toBe('ok');
  });

  it('never throws on arbitrary or damaged bytes', () => {
    const valid = Object.values(EXAMPLES).map(frameOf);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc
            .tuple(fc.constantFrom(...valid), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }))
            .map(([frame, flips]) => {
              const damaged = frame.slice();
              for (const [at, value] of flips) damaged[at % damaged.byteLength] = value;
              return damaged;
            }),
        ),
        (frame) => {
          const verdict = binaryCodec.decode(frame, LIMITS);
          if (verdict.ok) expect(checkStructure(verdict.value, LIMITS.maxDepth).ok).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('binaryCodec encode errors', () => {
  it('throws a clear error for an unknown type', () => {
    for (const type of ['bogus', '__proto__', 'constructor', undefined]) {
      expect(() => binaryCodec.encode({ ...envelope('heartbeat'), type } as unknown as AiccMessage)).toThrow(/cannot encode a message of type/);
    }
  });

  it('names the field that does not fit', () => {
    const encode = (message: unknown) => () => binaryCodec.encode(message as AiccMessage);
    const { input: _, ...withoutInput } = typicalCall;
    expect(encode(withoutInput)).toThrow(/tool_call message: input: cannot encode undefined as JSON/);
    expect(encode({ ...typicalCall, call_id: 5 })).toThrow(/call_id: expected a string, got number/);
    expect(encode({ ...typicalCall, extra: 1 })).toThrow(/extra: is not a field here/);
    expect(encode({ ...typicalCall, input: { n: 1n } })).toThrow(/input: cannot encode bigint as JSON/);
    expect(encode({ ...EXAMPLES.session_init, tools: [{ ...manifest.tools[0]!, limits: { calls_per_minute: '60' } }] })).toThrow(
      /session_init message: tools: limits: calls_per_minute: expected a number, got string/,
    );
  });
});
