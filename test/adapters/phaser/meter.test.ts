// The frame meter, on a hand-driven time source: nested measurements count once, and a link or
// codec wrapped by it adds the capsule side of each message.

import { describe, expect, it } from 'vitest';
import { FrameMeter } from '../../../src/adapters/phaser/meter.js';
import { jsonCodec } from '../../../src/protocol/codec.js';
import { objectCodec } from '../../../src/protocol/objectCodec.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { PROTOCOL, NIL_UUID } from '../../../src/protocol/messages.js';
import { DEFAULT_INBOUND_LIMITS } from '../../../src/protocol/inbound.js';
import { settle } from '../../helpers.js';

function metered(): { meter: FrameMeter; advance(ms: number): void } {
  let now = 0;
  return { meter: new FrameMeter(() => now), advance: (ms) => (now += ms) };
}

describe('FrameMeter', () => {
  it('adds the time of each measured piece of work, and counts nested work once', () => {
    const { meter, advance } = metered();
    meter.measure(() => advance(2));
    meter.measure(() => {
      advance(1);
      meter.measure(() => advance(3));
      advance(1);
    });
    advance(50); // outside any measurement
    expect(meter.stats()).toEqual({ frames: 0, capsuleMs: 7, drawMs: 0 });
  });

  it('times drawing apart from the capsule’s work', () => {
    const { meter, advance } = metered();
    meter.measure(() => advance(1));
    meter.draw(() => advance(6));
    expect(meter.stats()).toEqual({ frames: 0, capsuleMs: 1, drawMs: 6 });
  });

  it('still counts the time of work that throws, and lets the error through', () => {
    const { meter, advance } = metered();
    expect(() =>
      meter.measure(() => {
        advance(4);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(meter.stats().capsuleMs).toBe(4);
  });

  it('a wrapped link measures sends and the handling of inbound frames; a wrapped codec measures encoding', async () => {
    const { meter, advance } = metered();
    const [near, far] = createMemoryLinkPair();
    const link = meter.link(near);
    const received: unknown[] = [];
    link.listen({ message: (frame) => (advance(5), received.push(frame)), close: () => {} });
    far.listen({ message: () => advance(100), close: () => {} }); // the agent's side: not ours
    far.send('in');
    await settle();
    expect(received).toEqual(['in']);
    expect(meter.stats().capsuleMs).toBe(5);
    const codec = meter.codec({ ...jsonCodec, encode: (message) => (advance(2), jsonCodec.encode(message)) });
    const frame = codec.encode({ protocol: PROTOCOL, type: 'heartbeat', session_id: NIL_UUID, message_id: NIL_UUID });
    link.send(frame);
    await settle();
    expect(meter.stats().capsuleMs).toBe(7);
    expect(codec.decode(frame, DEFAULT_INBOUND_LIMITS)).toMatchObject({ ok: true });
    expect(link.open).toBe(true);
    // The object codec hands messages over untouched: there is no encoding to time.
    expect(meter.codec(objectCodec)).toBe(objectCodec);
  });
});
