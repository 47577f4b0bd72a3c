import { describe, expect, it } from 'vitest';
import { HeardMark } from '../../src/agent/heardMark.js';
import { SequencedIds } from '../../src/protocol/ids.js';

describe('HeardMark', () => {
  const ids = new SequencedIds();

  it('takes each sequence once, in order, and names the last one held', () => {
    const mark = new HeardMark(8);
    mark.begin(ids.idOf(1));
    expect([2, 3, 3, 2, 4].map((n) => mark.judge(ids.idOf(n)))).toEqual(['new', 'new', 'repeat', 'repeat', 'new']);
    expect(mark.id).toBe(ids.idOf(4));
  });

  it('refuses a jump past its bound without moving the mark, and takes an id off the prefix as it comes', () => {
    const mark = new HeardMark(8);
    mark.begin(ids.idOf(1));
    expect(mark.judge(ids.idOf(10))).toEqual({ jumpFrom: 1, to: 10 });
    expect(mark.judge(ids.idOf(9))).toBe('new');
    expect(mark.judge('0f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBe('new');
    expect(mark.id).toBe(ids.idOf(9));
    // The bridge's ids in upper case are the same ids.
    expect(mark.judge(ids.idOf(10).toUpperCase())).toBe('new');
    expect(mark.judge(ids.idOf(10))).toBe('repeat');
  });

  it('counts the shared events a direct wire hands on after the last whole message, and a trusted one resets them', () => {
    const mark = new HeardMark(8);
    mark.begin(ids.idOf(1));
    mark.trust(ids.idOf(2));
    mark.shared();
    mark.shared();
    expect(mark.id).toBe(ids.idOf(4));
    mark.trust(ids.idOf(5));
    expect(mark.id).toBe(ids.idOf(5));
    // A trusted message's sequence is read back when judging needs it.
    expect(mark.judge(ids.idOf(5))).toBe('repeat');
    expect(mark.judge(ids.idOf(6))).toBe('new');
  });
});
