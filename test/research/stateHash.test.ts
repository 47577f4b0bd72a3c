import { describe, expect, it } from 'vitest';
import { stateHash } from '../../src/research/stateHash.js';

describe('stateHash', () => {
  it('is 32 hex digits that do not depend on key order', () => {
    const hash = stateHash({ tick: 3, where: { b: 'x', a: 'y' }, list: [1, 2] });
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(stateHash({ list: [1, 2], where: { a: 'y', b: 'x' }, tick: 3 })).toBe(hash);
  });

  it('changes with any value, and with the order of a list', () => {
    const base = stateHash({ tick: 3, list: [1, 2] });
    expect(stateHash({ tick: 4, list: [1, 2] })).not.toBe(base);
    expect(stateHash({ tick: 3, list: [2, 1] })).not.toBe(base);
    expect(stateHash({ tick: '3', list: [1, 2] })).not.toBe(base);
  });

  it('is pinned: the same state hashes the same on every machine and version', () => {
    // A change here breaks every stored hash: results of older sweeps would no longer compare.
    expect(stateHash({ tick: 1, counts: { c0: 2 } })).toBe('98b5c6e8bfe60bc82fe7774c646e0984');
  });
});
