import { describe, expect, it } from 'vitest';
import { ReplayBuffer, type EventEnvelope } from '../../src/runtime/resumeReplay.js';
import type { AiccMessage } from '../../src/protocol/messages.js';

/** A distinct message standing for sequence number n. */
const msg = (n: number): AiccMessage => ({
  protocol: 'aicc/0.1',
  type: 'event',
  session_id: '00000000-0000-4000-8000-000000000000',
  message_id: `00000000-0000-8000-8000-${n.toString(16).padStart(12, '0')}`,
  topic: 'tick',
  payload: { tick: n },
});

/** How a session rebuilds an event's envelope from its sequence (the shape msg() makes). */
const envelope: EventEnvelope = (n, event) => ({ ...msg(n), topic: event.topic, payload: event.payload }) as ReturnType<EventEnvelope>;

function bufferWith(capacity: number, count: number): ReplayBuffer {
  const buffer = new ReplayBuffer(capacity);
  for (let n = 1; n <= count; n++) buffer.push(n, msg(n));
  return buffer;
}

describe('ReplayBuffer', () => {
  it('returns the messages after a sequence number, in order', () => {
    const buffer = bufferWith(10, 5);
    expect(buffer.after(2, envelope)).toEqual([msg(3), msg(4), msg(5)]);
  });

  it('returns everything after 0, and nothing after the latest', () => {
    const buffer = bufferWith(10, 3);
    expect(buffer.after(0, envelope)).toEqual([msg(1), msg(2), msg(3)]);
    expect(buffer.after(3, envelope)).toEqual([]);
    expect(buffer.after(99, envelope)).toEqual([]);
  });

  it('returns the same message objects it was given', () => {
    const buffer = new ReplayBuffer(4);
    const message = msg(1);
    buffer.push(1, message);
    expect(buffer.after(0, envelope)![0]).toBe(message);
  });

  it('has evictedUpTo 0 while nothing was evicted', () => {
    const buffer = bufferWith(3, 3);
    expect(buffer.evictedUpTo).toBe(0);
    expect(buffer.size).toBe(3);
  });

  it('raises evictedUpTo to each sequence evicted as capacity is exceeded', () => {
    const buffer = new ReplayBuffer(3);
    const seen: number[] = [];
    for (let n = 1; n <= 6; n++) {
      buffer.push(n, msg(n));
      seen.push(buffer.evictedUpTo);
    }
    expect(seen).toEqual([0, 0, 0, 1, 2, 3]);
  });

  it('gives undefined for a sequence below evictedUpTo: some messages after it are gone', () => {
    const buffer = bufferWith(3, 5); // holds 3, 4, 5; evicted up to 2
    expect(buffer.evictedUpTo).toBe(2);
    expect(buffer.after(1, envelope)).toBeUndefined();
    expect(buffer.after(0, envelope)).toBeUndefined();
  });

  it('still answers for a sequence equal to evictedUpTo, with every retained message', () => {
    const buffer = bufferWith(3, 5);
    expect(buffer.after(2, envelope)).toEqual([msg(3), msg(4), msg(5)]);
    expect(buffer.after(4, envelope)).toEqual([msg(5)]);
  });

  it('keeps exactly `capacity` messages after 10× capacity pushes, the newest ones', () => {
    const capacity = 7;
    const buffer = bufferWith(capacity, 10 * capacity);
    expect(buffer.size).toBe(capacity);
    expect(buffer.evictedUpTo).toBe(9 * capacity);
    expect(buffer.after(buffer.evictedUpTo, envelope)).toEqual(Array.from({ length: capacity }, (_, i) => msg(9 * capacity + 1 + i)));
  });

  it('keeps size at capacity after every push once full', () => {
    const buffer = new ReplayBuffer(4);
    for (let n = 1; n <= 40; n++) {
      buffer.push(n, msg(n));
      expect(buffer.size).toBe(Math.min(n, 4));
    }
  });

  it('with capacity 1 keeps only the latest message', () => {
    const buffer = bufferWith(1, 5);
    expect(buffer.size).toBe(1);
    expect(buffer.evictedUpTo).toBe(4);
    expect(buffer.after(4, envelope)).toEqual([msg(5)]);
    expect(buffer.after(3, envelope)).toBeUndefined();
  });

  it('works with sequence numbers that skip', () => {
    const buffer = new ReplayBuffer(2);
    for (const n of [10, 20, 30]) buffer.push(n, msg(n));
    expect(buffer.evictedUpTo).toBe(10);
    expect(buffer.after(10, envelope)).toEqual([msg(20), msg(30)]);
    expect(buffer.after(25, envelope)).toEqual([msg(30)]);
    expect(buffer.after(9, envelope)).toBeUndefined();
  });

  it('keeps a shared event by reference and rebuilds its envelope from the sequence on replay', () => {
    const buffer = new ReplayBuffer(4);
    const shared = { topic: 'tick' as const, payload: { tick: 2 } };
    buffer.push(1, msg(1));
    buffer.pushEvent(2, shared);
    buffer.push(3, msg(3));
    const replayed = buffer.after(0, envelope)!;
    expect(replayed).toEqual([msg(1), msg(2), msg(3)]);
    expect(replayed[1]!.type === 'event' && replayed[1]!.payload).toBe(shared.payload); // the very payload, not a copy
  });

  it('evicts shared events like any other, and knows their sequences', () => {
    const buffer = new ReplayBuffer(2);
    for (let n = 1; n <= 4; n++) buffer.pushEvent(n, { topic: 'tick', payload: { tick: n } });
    expect(buffer.evictedUpTo).toBe(2);
    expect(buffer.after(1, envelope)).toBeUndefined();
    expect(buffer.after(2, envelope)).toEqual([msg(3), msg(4)]);
  });
});
