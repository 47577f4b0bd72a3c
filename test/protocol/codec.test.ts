import { describe, expect, it } from 'vitest';
import { jsonCodec, oversized } from '../../src/protocol/codec.js';
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from '../../src/protocol/inbound.js';
import type { AiccMessage, ToolCall } from '../../src/protocol/messages.js';

const LIMITS = DEFAULT_INBOUND_LIMITS;
const call: ToolCall = {
  protocol: 'aicc/0.1',
  type: 'tool_call',
  session_id: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e',
  message_id: '0a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d',
  call_id: 'c-1',
  tool: 'say',
  input: { text: 'héllo 世界 🎮', n: -2.5, big: 2 ** 53 - 1, list: [null, true, { deep: [] }] },
};
const bytesOf = (text: string) => new TextEncoder().encode(text);
const kindOf = (frame: string | Uint8Array, limits: InboundLimits = LIMITS) => {
  const verdict = jsonCodec.decode(frame, limits);
  return verdict.ok ? 'ok' : verdict.kind;
};
const refusal = (frame: string | Uint8Array, limits: InboundLimits = LIMITS) => {
  const verdict = jsonCodec.decode(frame, limits);
  if (verdict.ok) throw new Error('expected a refusal');
  return verdict;
};

describe('jsonCodec', () => {
  it('is named json and encodes to a JSON text frame', () => {
    expect(jsonCodec.name).toBe('json');
    expect(jsonCodec.encode(call)).toBe(JSON.stringify(call));
  });

  it('round-trips a message as a text frame and as UTF-8 bytes', () => {
    const frame = jsonCodec.encode(call) as string;
    expect(jsonCodec.decode(frame, LIMITS)).toStrictEqual({ ok: true, value: call });
    expect(jsonCodec.decode(bytesOf(frame), LIMITS)).toStrictEqual({ ok: true, value: call });
  });

  it('round-trips every optional field absent and present', () => {
    const messages: AiccMessage[] = [
      { protocol: 'aicc/0.1', type: 'session_close', session_id: call.session_id, message_id: call.message_id, reason: 'done' },
      { protocol: 'aicc/0.1', type: 'heartbeat', session_id: call.session_id, message_id: call.message_id },
      {
        protocol: 'aicc/0.1',
        type: 'tool_result',
        session_id: call.session_id,
        message_id: call.message_id,
        call_id: 'c-1',
        ok: true,
        output: {},
        meta: { tick: 1 },
      },
    ];
    for (const message of messages) expect(jsonCodec.decode(jsonCodec.encode(message), LIMITS)).toStrictEqual({ ok: true, value: message });
  });

  it('refuses an oversized frame, counting UTF-8 bytes of a text frame', () => {
    const frame = jsonCodec.encode(call) as string;
    const size = bytesOf(frame).byteLength;
    expect(size).toBeGreaterThan(frame.length); // the input holds multi-byte characters
    expect(kindOf(frame, { ...LIMITS, maxFrameBytes: size })).toBe('ok');
    expect(kindOf(frame, { ...LIMITS, maxFrameBytes: size - 1 })).toBe('oversized_frame');
    expect(kindOf(bytesOf(frame), { ...LIMITS, maxFrameBytes: size - 1 })).toBe('oversized_frame');
    expect(refusal(frame, { ...LIMITS, maxFrameBytes: 10 })).toStrictEqual(oversized({ ...LIMITS, maxFrameBytes: 10 }));
    expect(oversized({ ...LIMITS, maxFrameBytes: 10 })).toMatchObject({ ok: false, message: expect.stringMatching(/10 bytes/) });
  });

  it('refuses a frame that is not JSON', () => {
    for (const frame of ['', 'not json', '{"a":', '{"a":1}}', "{'a':1}"]) {
      expect(refusal(frame)).toMatchObject({ kind: 'malformed_frame', message: expect.stringMatching(/not JSON/) });
    }
    expect(kindOf(bytesOf('{"a":'))).toBe('malformed_frame');
  });

  it('refuses bytes that are not UTF-8', () => {
    for (const frame of [new Uint8Array([0x7b, 0xff, 0x7d]), new Uint8Array([0xc3]), new Uint8Array([0xed, 0xa0, 0x80])]) {
      expect(refusal(frame)).toMatchObject({ kind: 'malformed_frame', message: expect.stringMatching(/UTF-8/) });
    }
  });

  it('refuses nesting deeper than maxDepth', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(kindOf(nested(32))).toBe('ok');
    expect(kindOf(nested(33))).toBe('too_deep');
    expect(kindOf(nested(3), { ...LIMITS, maxDepth: 2 })).toBe('too_deep');
    expect(kindOf(JSON.stringify({ a: { b: { c: 1 } } }), { ...LIMITS, maxDepth: 3 })).toBe('ok');
    expect(kindOf(JSON.stringify({ a: { b: { c: {} } } }), { ...LIMITS, maxDepth: 3 })).toBe('too_deep');
  });

  it('refuses a __proto__ key anywhere', () => {
    expect(kindOf('{"__proto__": {"polluted": true}}')).toBe('forbidden_key');
    expect(kindOf(JSON.stringify({ ...call, input: { list: [{ a: 1 }] } }).replace('"a"', '"__proto__"'))).toBe('forbidden_key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses constructor.prototype but not other constructor keys', () => {
    expect(kindOf('{"constructor": {"prototype": {"polluted": true}}}')).toBe('forbidden_key');
    expect(kindOf('{"input": [{"constructor": {"prototype": null}}]}')).toBe('forbidden_key');
    expect(kindOf('{"constructor": "a string"}')).toBe('ok');
    expect(kindOf('{"constructor": {"name": "x"}}')).toBe('ok');
  });
});

describe('jsonCodec.encodeEvent', () => {
  it('makes the frame JSON.stringify makes, byte for byte, whatever the payload and meta', async () => {
    const fc = await import('fast-check');
    const { TOPICS } = await import('../../src/protocol/messages.js');
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.uuid(),
        fc.constantFrom(...TOPICS),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
        (sid, mid, topic, payload, meta) => {
          const message =
            meta === undefined
              ? { protocol: 'aicc/0.1' as const, type: 'event' as const, session_id: sid, message_id: mid, topic, payload }
              : { protocol: 'aicc/0.1' as const, type: 'event' as const, session_id: sid, message_id: mid, topic, payload, meta };
          expect(jsonCodec.encodeEvent!(message, {})).toBe(JSON.stringify(message));
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it('encodes a payload once for every session it reaches', async () => {
    const { makeCapsule, connectRaw, settle } = await import('../helpers.js');
    const { capsule } = makeCapsule();
    const peers = await Promise.all(
      [1, 2, 3].map((n) => connectRaw(capsule, { character: `c${n}`, agentModel: { class: 'edge_small' }, subscriptions: ['state_change'] })),
    );
    let encodings = 0;
    const payload = { entity: 'w', field: 'x', value: { toJSON: () => (encodings++, 7) } };
    capsule.emit('state_change', payload as never);
    await settle();
    expect(peers.map((p) => p.ofType('event').map((e) => e.payload))).toEqual([
      [{ entity: 'w', field: 'x', value: 7 }],
      [{ entity: 'w', field: 'x', value: 7 }],
      [{ entity: 'w', field: 'x', value: 7 }],
    ]);
    expect(encodings).toBe(1);
  });
});

describe('batchedFraming.join', () => {
  it('packs a delivery into as few frames as its bounds allow, in order', async () => {
    const { batchedFraming, MAX_BATCH_MESSAGES, MAX_BATCH_CHARS } = await import('../../src/protocol/batchedFraming.js');
    expect(batchedFraming.join(['{"a":1}'])).toEqual(['{"a":1}']);
    expect(batchedFraming.join(['{"a":1}', '{"b":2}'])).toEqual(['[{"a":1},{"b":2}]']);
    const many = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => `{"n":${i}}`);
    const frames = batchedFraming.join(many) as string[];
    expect(frames.map((f) => (f.startsWith('[') ? JSON.parse(f).length : 1))).toEqual([MAX_BATCH_MESSAGES, 1]);
    const big = 'x'.repeat(MAX_BATCH_CHARS / 2);
    expect(batchedFraming.join([`"${big}"`, `"${big}"`, '1']).length).toBe(2);
    expect(frames.flatMap((f) => (f.startsWith('[') ? JSON.parse(f) : [JSON.parse(f)])).map((m: { n: number }) => m.n)).toEqual(many.map((_, i) => i));
  });

  it('packs message objects (objectCodec) into arrays of at most MAX_BATCH_MESSAGES, one message alone', async () => {
    const { batchedFraming, MAX_BATCH_MESSAGES } = await import('../../src/protocol/batchedFraming.js');
    const one = { n: 0 };
    expect(batchedFraming.join([one])).toEqual([one]);
    const many = Array.from({ length: 2 * MAX_BATCH_MESSAGES + 1 }, (_, n) => ({ n }));
    const frames = batchedFraming.join(many);
    expect(frames.map((frame) => (Array.isArray(frame) ? frame.length : 1))).toEqual([MAX_BATCH_MESSAGES, MAX_BATCH_MESSAGES, 1]);
    expect(frames.flatMap((frame) => (Array.isArray(frame) ? frame : [frame]))).toEqual(many);
  });
});
