// The courier between an engine binding and its capsule: a disposed capsule is left alone, a game
// listener's throw is the game's (rethrown on its own), and the frame goes on.

import { describe, expect, it, vi } from 'vitest';
import { CapsuleCourier } from '../../../src/adapters/shared/capsuleCourier.js';
import { makeCapsule } from '../../helpers.js';

describe('CapsuleCourier', () => {
  it('steps and emits until the capsule is disposed, then stops talking to it', () => {
    const { capsule, clock } = makeCapsule();
    const courier = new CapsuleCourier(capsule);
    const heard: unknown[] = [];
    capsule.on('collision', (payload) => heard.push(payload));
    courier.step(100);
    expect(clock.now()).toBe(100);
    courier.emit('collision', { a: 'x', b: 'y', phase: 'begin' }, []);
    expect(heard).toHaveLength(1);
    capsule.dispose();
    courier.step(100);
    courier.emit('collision', { a: 'x', b: 'y', phase: 'end' });
    expect(courier.gone).toBe(true);
    expect(heard).toHaveLength(1);
  });

  it("rethrows a game listener's error on its own, so the frame that emitted goes on", async () => {
    const { capsule } = makeCapsule();
    const courier = new CapsuleCourier(capsule);
    capsule.on('collision', () => {
      throw new Error('the game listener failed');
    });
    const thrown = vi.fn();
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) =>
      original(() => {
        try {
          task();
        } catch (error) {
          thrown(error);
        }
      });
    try {
      expect(() => courier.emit('collision', { a: 'x', b: 'y' })).not.toThrow();
      await Promise.resolve();
      expect(thrown).toHaveBeenCalledWith(new Error('the game listener failed'));
      expect(courier.gone).toBe(false);
    } finally {
      globalThis.queueMicrotask = original;
    }
  });
});
