import fc from 'fast-check';
import { expect, it } from 'vitest';
import { binaryCodec } from '../../src/links/binaryCodec.js';
import { checkStructure } from '../../src/runtime/inbound.js';
const LOOSE = { maxFrameBytes: 1e8, maxDepth: 10000 };
const env = { protocol: 'aicc/0.1', session_id: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e', message_id: 'X' };
it('fuzz roundtrip', () => {
  fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }), fc.string({ unit: 'binary' }), fc.string(), (value, s, id) => {
    const msgs: any[] = [
      { ...env, type: 'tool_call', message_id: id, call_id: s, tool: s, input: { value } },
      { ...env, type: 'event', topic: s, payload: { [s]: value }, meta: { value } },
      { ...env, type: 'heartbeat', manifest_update: { value } },
      { ...env, type: 'tool_result', call_id: s, ok: false, error: { code: s, message: s, retryable: true }, output: { value } },
    ];
    for (const m of msgs) {
      if (!checkStructure(m, 10000).ok) continue;
      expect(binaryCodec.decode(binaryCodec.encode(m), LOOSE)).toStrictEqual({ ok: true, value: m });
    }
  }), { numRuns: 5000 });
});
it('fuzz damage', () => {
  const frames = [binaryCodec.encode({ ...env, type: 'tool_call', call_id: 'c', tool: 't', input: { a: [1, 2.5, 'x', { b: null }], c: 'é' } } as any) as Uint8Array];
  fc.assert(fc.property(fc.constantFrom(...frames), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 6 }), fc.nat(40), (frame, flips, cut) => {
    const d = frame.slice(0, Math.max(0, frame.length - (cut % 3)));
    for (const [at, v] of flips) d[at % Math.max(1, d.length)] = v;
    const verdict = binaryCodec.decode(d, { maxFrameBytes: 1e6, maxDepth: 32 });
    if (verdict.ok) { const again = binaryCodec.encode(verdict.value as any) as Uint8Array; expect(binaryCodec.decode(again, LOOSE)).toStrictEqual(verdict); }
  }), { numRuns: 100000 });
});
