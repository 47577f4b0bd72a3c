import { describe, expect, it, vi } from 'vitest';
import type { Frame } from '../../src/protocol/codec.js';
import type { Link } from '../../src/links/link.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';

/** Lets queued microtasks (the link's deliveries) run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Listens on a link and logs what arrives: 'msg:<frame>' and 'close:<reason>'. */
function logOf(link: Link): string[] {
  const log: string[] = [];
  link.listen({
    message: (frame: Frame) => log.push(`msg:${typeof frame === 'string' ? frame : `bytes(${[...(frame as Uint8Array)].join(',')})`}`),
    close: (reason) => log.push(`close:${reason}`),
  });
  return log;
}

describe('createMemoryLinkPair', () => {
  it('delivers frames to the other end in the order they were sent', async () => {
    const [a, b] = createMemoryLinkPair();
    const log = logOf(b);
    a.send('1');
    a.send('2');
    a.send('3');
    await settle();
    expect(log).toEqual(['msg:1', 'msg:2', 'msg:3']);
  });

  it('carries binary frames as they are', async () => {
    const [a, b] = createMemoryLinkPair();
    const received: Frame[] = [];
    b.listen({ message: (frame) => received.push(frame), close: () => {} });
    const bytes = new Uint8Array([0, 1, 255]);
    a.send(bytes);
    await settle();
    expect(received).toEqual([new Uint8Array([0, 1, 255])]);
  });

  it('works both ways', async () => {
    const [a, b] = createMemoryLinkPair();
    const logA = logOf(a);
    const logB = logOf(b);
    a.send('to b');
    b.send('to a');
    await settle();
    expect(logA).toEqual(['msg:to a']);
    expect(logB).toEqual(['msg:to b']);
  });

  it('delivers asynchronously, never during send', async () => {
    const [a, b] = createMemoryLinkPair();
    const log = logOf(b);
    a.send('x');
    expect(log).toEqual([]);
    await Promise.resolve();
    await settle();
    expect(log).toEqual(['msg:x']);
  });

  it('does not re-enter a handler: a reply sent from a message handler arrives after that handler returns', async () => {
    const [a, b] = createMemoryLinkPair();
    const order: string[] = [];
    let inHandlerA = false;
    a.listen({
      message: (frame) => {
        inHandlerA = true;
        order.push(`a got ${String(frame)}`);
        a.send('pong');
        order.push('a handler done');
        inHandlerA = false;
      },
      close: () => {},
    });
    b.listen({
      message: (frame) => {
        order.push(`b got ${String(frame)} (a busy: ${inHandlerA})`);
      },
      close: () => {},
    });
    b.send('ping');
    await settle();
    expect(order).toEqual(['a got ping', 'a handler done', 'b got pong (a busy: false)']);
  });

  it('holds frames that arrive before listen() and delivers them once it is called', async () => {
    const [a, b] = createMemoryLinkPair();
    a.send('early');
    await settle();
    const log = logOf(b);
    expect(log).toEqual([]);
    await settle();
    expect(log).toEqual(['msg:early']);
  });

  it('reports close on both ends, once each, with the reason', async () => {
    const [a, b] = createMemoryLinkPair();
    const logA = logOf(a);
    const logB = logOf(b);
    a.close('game over');
    a.close('again');
    b.close('from b');
    await settle();
    expect(logA).toEqual(['close:game over']);
    expect(logB).toEqual(['close:game over']);
  });

  it('reports close asynchronously', async () => {
    const [a, b] = createMemoryLinkPair();
    const logB = logOf(b);
    a.close('bye');
    expect(logB).toEqual([]);
    await settle();
    expect(logB).toEqual(['close:bye']);
  });

  it("uses 'closed' as the reason when none is given", async () => {
    const [a, b] = createMemoryLinkPair();
    const logB = logOf(b);
    a.close();
    await settle();
    expect(logB).toEqual(['close:closed']);
  });

  it('still delivers frames sent before close, then the close', async () => {
    const [a, b] = createMemoryLinkPair();
    const logB = logOf(b);
    a.send('1');
    a.send('2');
    a.close('done');
    await settle();
    expect(logB).toEqual(['msg:1', 'msg:2', 'close:done']);
  });

  it('delivers to the closing end what its peer had sent before the close', async () => {
    const [a, b] = createMemoryLinkPair();
    const logA = logOf(a);
    b.send('last words');
    a.close('hang up');
    await settle();
    expect(logA).toEqual(['msg:last words', 'close:hang up']);
  });

  it('drops frames sent after close, from either end', async () => {
    const [a, b] = createMemoryLinkPair();
    const logA = logOf(a);
    const logB = logOf(b);
    a.close('done');
    a.send('from a');
    b.send('from b');
    await settle();
    expect(logA).toEqual(['close:done']);
    expect(logB).toEqual(['close:done']);
    expect(a.bufferedAmount).toBe(0);
    expect(b.bufferedAmount).toBe(0);
  });

  it('flips open to false on both ends at once when either closes', () => {
    const [a, b] = createMemoryLinkPair();
    expect(a.open).toBe(true);
    expect(b.open).toBe(true);
    b.close('bye');
    expect(a.open).toBe(false);
    expect(b.open).toBe(false);
  });

  it('counts in bufferedAmount the frames the peer has not taken yet', async () => {
    const [a, b] = createMemoryLinkPair();
    expect(a.bufferedAmount).toBe(0);
    a.send('1');
    a.send('2');
    a.send('3');
    expect(a.bufferedAmount).toBe(3);
    expect(b.bufferedAmount).toBe(0);
    await settle(); // b is not listening yet: nothing is taken
    expect(a.bufferedAmount).toBe(3);
    logOf(b);
    await settle();
    expect(a.bufferedAmount).toBe(0);
  });

  it('closes the link when the peer falls maxQueuedFrames behind', async () => {
    const [a, b] = createMemoryLinkPair({ maxQueuedFrames: 2 });
    const logA = logOf(a);
    a.send('1');
    a.send('2');
    expect(a.open).toBe(true);
    a.send('3');
    expect(a.open).toBe(false);
    expect(b.open).toBe(false);
    const logB = logOf(b);
    await settle();
    const reason = 'memory link: peer fell 2 frames behind';
    expect(logA).toEqual([`close:${reason}`]);
    expect(logB).toEqual(['msg:1', 'msg:2', `close:${reason}`]);
  });

  it('does not close when the peer keeps up, however many frames go by', async () => {
    const [a, b] = createMemoryLinkPair({ maxQueuedFrames: 2 });
    const logB = logOf(b);
    for (let i = 0; i < 10; i++) {
      a.send(String(i));
      a.send(String(i));
      await settle();
    }
    expect(a.open).toBe(true);
    expect(logB).toHaveLength(20);
  });

  it('by default allows 10,000 frames waiting, and closes at the next', () => {
    const [a] = createMemoryLinkPair();
    for (let i = 0; i < 10_000; i++) a.send('x');
    expect(a.open).toBe(true);
    expect(a.bufferedAmount).toBe(10_000);
    a.send('one too many');
    expect(a.open).toBe(false);
  });
});

describe('a receiver that throws', () => {
  it('does not cost the frames behind it, and its error still surfaces', async () => {
    const rethrown: unknown[] = [];
    const realQueue = globalThis.queueMicrotask;
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) =>
      realQueue(() => {
        try {
          callback();
        } catch (error) {
          rethrown.push(error);
        }
      }),
    );
    try {
      const [a, b] = createMemoryLinkPair();
      const got: string[] = [];
      b.listen({
        message: (frame) => {
          if (frame === 'boom') throw new Error('listener bug');
          got.push(String(frame));
        },
        close: () => {},
      });
      a.send('one');
      a.send('boom');
      a.send('two');
      await new Promise((resolve) => setImmediate(resolve));
      expect(got).toEqual(['one', 'two']);
      expect(rethrown).toMatchObject([{ message: 'listener bug' }]);
    } finally {
      spy.mockRestore();
    }
  });
});
