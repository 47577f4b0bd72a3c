import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callNumber, ResultCache, type CallResult } from '../../src/runtime/resultCache.js';

const result = (callId: string, ok = true): CallResult =>
  ok
    ? { call_id: callId, ok: true, output: { id: callId }, meta: { tick: 0, latency_ms: 0, source: 'handler' } }
    : { call_id: callId, ok: false, error: { code: 'tool_unavailable', message: 'busy', retryable: true }, meta: { tick: 0, latency_ms: 0, source: 'bridge' } };

describe('callNumber', () => {
  it('reads the number of a call_id numbered as AgentClient numbers them, and nothing else', () => {
    expect(callNumber('c0')).toBe(0);
    expect(callNumber('c17')).toBe(17);
    expect(callNumber('!c18')).toBe(18);
    expect(callNumber('c123456789012345')).toBe(123456789012345);
    for (const other of ['', 'c', '!c', 'c07', 'c1x', 'C1', 'x1', 'c-1', 'c1.5', '!!c1', 'c1234567890123456', 'call-1'])
      expect(callNumber(other), other).toBe(-1);
  });
});

describe('ResultCache', () => {
  it('answers a repeated call_id with its result, numbered or not, however many higher numbers came between', () => {
    const cache = new ResultCache(256);
    expect(cache.claim('c5')).toBeUndefined();
    cache.store(result('c5'));
    for (const id of ['c9', 'mine-1', 'c100']) {
      expect(cache.claim(id)).toBeUndefined();
      cache.store(result(id));
    }
    expect(cache.claim('c5')).toEqual(result('c5'));
    expect(cache.claim('mine-1')).toEqual(result('mine-1'));
    // The same number spelled for hybrid mode is another call_id.
    expect(cache.claim('!c5')).toBeUndefined();
  });

  it('keeps calls whose numbers share a slot, or pass 2^31, apart', () => {
    const cache = new ResultCache(4);
    const ids = ['c3', 'c19', 'c35', `c${2 ** 31 + 3}`, `c${2 ** 40 + 3}`, '!c3'];
    for (const id of ids) {
      expect(cache.claim(id), id).toBeUndefined();
      cache.store(result(id));
    }
    // The last four finished are remembered, whatever slot they share.
    for (const id of ids.slice(-4)) expect(cache.claim(id), id).toEqual(result(id));
  });

  it('holds a running call as null, and forgets a retryable refusal so a retry is evaluated afresh', () => {
    const cache = new ResultCache(256);
    expect(cache.claim('c1')).toBeUndefined();
    expect(cache.claim('c1')).toBeNull();
    cache.store(result('c1', false));
    expect(cache.claim('c1')).toBeUndefined();
  });

  it('behaves like a plain model of its promise under any stream of claims and stores (property)', () => {
    // The model: every claimed call_id is remembered until `capacity` newer ones finished after it;
    // a running one is never forgotten; a retryable refusal is forgotten at once.
    const id = fc.oneof(
      fc.nat(10).map((n) => `c${n}`),
      fc.nat(4).map((n) => `!c${n}`),
      fc.constantFrom('a', 'b', 'c07', 'x'),
    );
    const step = fc.record({ id, finish: fc.boolean(), fail: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), fc.integer({ min: 1, max: 8 }), (steps, capacity) => {
        const cache = new ResultCache(capacity);
        const running = new Set<string>();
        const finished: string[] = []; // oldest first
        const results = new Map<string, CallResult>();
        for (const { id, finish, fail } of steps) {
          const answer = cache.claim(id);
          if (running.has(id)) expect(answer).toBeNull();
          else if (results.has(id) && finished.slice(-capacity).includes(id)) expect(answer).toEqual(results.get(id));
          if (answer === undefined) running.add(id);
          if (finish && running.has(id)) {
            running.delete(id);
            const made = result(id, !fail);
            cache.store(made);
            if (fail) results.delete(id);
            else {
              results.set(id, made);
              finished.push(id);
            }
          }
        }
      }),
      { numRuns: 300, seed: 14 },
    );
  });
});
