import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { Heartbeats } from '../../src/runtime/heartbeats.js';

describe('Heartbeats', () => {
  it('beats every started session each interval on one timer, and stops the timer when none is left', () => {
    const clock = new ManualClock();
    const beats = new Heartbeats(clock, 1000);
    const seen: string[] = [];
    const a = { beat: () => seen.push(`a@${clock.now()}`) };
    const b = { beat: () => seen.push(`b@${clock.now()}`) };
    beats.start(a);
    clock.advance(500);
    beats.start(b); // beaten from the next beat on, with a
    clock.advance(1500);
    beats.stop(a);
    clock.advance(1000);
    beats.stop(b);
    expect(clock.pendingTimers).toBe(0);
    clock.advance(5000);
    expect(seen).toEqual(['a@1000', 'b@1000', 'a@2000', 'b@2000', 'b@3000']);
  });

  it('lets a session stop while it is beaten', () => {
    const clock = new ManualClock();
    const beats = new Heartbeats(clock, 100);
    const seen: string[] = [];
    const a = { beat: () => (seen.push('a'), beats.stop(a)) };
    const b = { beat: () => seen.push('b') };
    beats.start(a);
    beats.start(b);
    clock.advance(300);
    expect(seen).toEqual(['a', 'b', 'b', 'b']);
  });
});
