import { describe, expect, it } from 'vitest';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { tapLink, wrapLink } from '../../src/links/wrapLink.js';
import type { Frame } from '../../src/protocol/codec.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('wrapLink', () => {
  it('passes sends and inbound frames through its wrappers, which decide whether and what to pass on', async () => {
    const [a, b] = createMemoryLinkPair();
    const log: string[] = [];
    const wrapped = wrapLink(a, {
      send: (frame, send) => {
        log.push(`send ${String(frame)}`);
        if (frame !== 'drop') send(`${String(frame)}!`);
      },
      message: (frame, deliver) => {
        log.push(`in ${String(frame)}`);
        deliver(`${String(frame)}?`);
      },
    });
    const atB: Frame[] = [];
    const atA: Frame[] = [];
    b.listen({ message: (frame) => atB.push(frame), close: () => {} });
    wrapped.listen({ message: (frame) => atA.push(frame), close: () => {} });
    wrapped.send('hi');
    wrapped.send('drop');
    b.send('yo');
    await turn();
    expect(atB).toEqual(['hi!']);
    expect(atA).toEqual(['yo?']);
    expect(log).toEqual(['send hi', 'send drop', 'in yo']);
  });

  it('leaves what it has no wrapper for as it is, and shows the link underneath', async () => {
    const [a, b] = createMemoryLinkPair();
    const wrapped = wrapLink(a, {});
    const atB: Frame[] = [];
    b.listen({ message: (frame) => atB.push(frame), close: () => {} });
    wrapped.send('plain');
    expect(wrapped.bufferedAmount).toBe(a.bufferedAmount);
    await turn();
    expect(atB).toEqual(['plain']);
    let closed = '';
    wrapped.listen({ message: () => {}, close: (reason) => (closed = reason) });
    wrapped.close('done');
    await turn();
    expect(wrapped.open).toBe(false);
    expect(closed).toBe('done');
  });
});

describe('tapLink', () => {
  it('shows every inbound frame to the tap before the receiver gets it', async () => {
    const [a, b] = createMemoryLinkPair();
    const order: string[] = [];
    const tapped = tapLink(a, (frame) => order.push(`tap ${String(frame)}`));
    tapped.listen({ message: (frame) => order.push(`got ${String(frame)}`), close: () => {} });
    b.send('one');
    await turn();
    expect(order).toEqual(['tap one', 'got one']);
  });
});
