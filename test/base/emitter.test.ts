import { describe, expect, it } from 'vitest';
import { createEmitter } from '../../src/base/emitter.js';

describe('createEmitter', () => {
  it('calls the handlers of a type in the order they subscribed, with the event', () => {
    const bus = createEmitter<{ a: number; b: string }>();
    const seen: string[] = [];
    bus.on('a', (n) => seen.push(`first ${n}`));
    bus.on('a', (n) => seen.push(`second ${n}`));
    bus.on('b', (s) => seen.push(`b ${s}`));
    bus.emit('a', 1);
    bus.emit('b', 'x');
    expect(seen).toEqual(['first 1', 'second 1', 'b x']);
  });

  it('lets a handler unsubscribe itself or another while an emit runs: that emit still reaches the list it started with', () => {
    const bus = createEmitter<{ a: number }>();
    const seen: string[] = [];
    const second = (n: number) => seen.push(`second ${n}`);
    const first = (n: number) => {
      seen.push(`first ${n}`);
      bus.off('a', first);
      bus.off('a', second);
      bus.on('a', (m) => seen.push(`late ${m}`));
    };
    bus.on('a', first);
    bus.on('a', second);
    bus.emit('a', 1);
    bus.emit('a', 2);
    expect(seen).toEqual(['first 1', 'second 1', 'late 2']);
  });

  it('says through all.has whether anyone listens, and forgets a type with no handlers left', () => {
    const bus = createEmitter<{ a: number }>();
    const handler = () => {};
    expect(bus.all.has('a')).toBe(false);
    bus.on('a', handler);
    expect(bus.all.has('a')).toBe(true);
    bus.off('a', () => {}); // not subscribed: nothing changes
    bus.off('a', handler);
    expect(bus.all.has('a')).toBe(false);
    expect(() => bus.emit('a', 1)).not.toThrow();
  });
});
